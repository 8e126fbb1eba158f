package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/agents/definition"
	"golang.org/x/sync/errgroup"
)

func registerBuiltins(e *Engine) {
	r := e.Registry
	r.Register(definition.StepText, HandlerFunc(stepText))
	r.Register(definition.StepRegexReplace, HandlerFunc(stepRegexReplace))
	r.Register(definition.StepGate, HandlerFunc(stepGate))
	r.Register(definition.StepIfElse, HandlerFunc(stepIfElse))
	r.Register(definition.StepSwitch, HandlerFunc(stepSwitch))
	r.Register(definition.StepForEach, HandlerFunc(stepForEach))
	r.Register(definition.StepMerge, HandlerFunc(stepMerge))
	r.Register(definition.StepJoin, HandlerFunc(stepJoin))
	r.Register(definition.StepDisplayResult, HandlerFunc(stepDisplayResult))
	r.Register(definition.StepRetry, HandlerFunc(stepRetry))
	r.Register(definition.StepStreamingResult, HandlerFunc(stepStreamingResult))
	r.Register(definition.StepHumanInTheLoop, HandlerFunc(stepHumanInTheLoop))
	r.Register(definition.StepPromptCall, HandlerFunc(stepPromptCall))
	r.Register(definition.StepExtractData, HandlerFunc(stepExtractData))
	r.Register(definition.StepExtractContent, HandlerFunc(stepExtractContent))
	r.Register(definition.StepWebhookCall, HandlerFunc(stepWebhookCall))
	r.Register(definition.StepWriteS3Object, HandlerFunc(stepWriteS3Object))
	r.Register(definition.StepCallAgent, HandlerFunc(stepCallAgent))
}

func stepText(_ context.Context, x *Exec) (Result, error) {
	out, err := x.Field("text", "")
	return Result{Output: out}, err
}

func stepRegexReplace(ctx context.Context, x *Exec) (Result, error) {
	rules, _ := x.Step.Config["rules"].([]any)
	out := x.Input
	for i, r := range rules {
		m, _ := r.(map[string]any)
		pattern, _ := m["pattern"].(string)
		repl, _ := m["replacement"].(string)
		flags, _ := m["flags"].(string)
		if flags != "" {
			pattern = "(?" + flags + ")" + pattern
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return Result{}, fmt.Errorf("rule %d: %v", i, err)
		}
		// \1 is accepted as a synonym of $1.
		repl = backref.ReplaceAllString(repl, "$${$1}")
		out, err = boundedReplace(ctx, re, out, repl, x.x.budget.limits.MaxStepOutputBytes, fmt.Sprintf("the output of rule %d", i))
		if err != nil {
			return Result{}, err
		}
	}
	return Result{Output: out}, nil
}

var backref = regexp.MustCompile(`\\(\d+)`)

func stepGate(_ context.Context, x *Exec) (Result, error) {
	ok, err := x.evalConditions(x.Step.Config["conditions"])
	if err != nil {
		return Result{}, err
	}
	return Result{Output: x.Input, Stop: !ok}, nil
}

// stepIfElse runs the chosen branch itself; the engine then continues with
// the step's child_steps on the branch's output.
func stepIfElse(ctx context.Context, x *Exec) (Result, error) {
	ok, err := x.evalConditions(x.Step.Config["conditions"])
	if err != nil {
		return Result{}, err
	}
	branch := x.Step.Then
	if !ok {
		branch = x.Step.Else
	}
	return runBranch(ctx, x, branch)
}

func runBranch(ctx context.Context, x *Exec, branch []*definition.Step) (Result, error) {
	if len(branch) == 0 {
		return Result{Output: x.Input}, nil
	}
	out, stopped, err := x.RunSteps(ctx, branch, x.Input, "")
	return Result{Output: out, Stop: stopped}, err
}

func stepSwitch(ctx context.Context, x *Exec) (Result, error) {
	d, err := x.Field("discriminator", "{{input}}")
	if err != nil {
		return Result{}, err
	}
	d = strings.TrimSpace(d)
	for _, c := range x.Step.Cases {
		if c == nil {
			continue
		}
		matches := []any{c.Match}
		if list, ok := c.Match.([]any); ok {
			matches = list
		}
		for _, m := range matches {
			if stringify(m) == d {
				return runBranch(ctx, x, c.Steps)
			}
		}
	}
	return runBranch(ctx, x, x.Step.Else)
}

// stepForEach runs the body per item, at most `concurrency` at once; the
// output is the JSON array of the body outputs in item order.
func stepForEach(ctx context.Context, x *Exec) (Result, error) {
	raw, err := x.Field("items", "{{input}}")
	if err != nil {
		return Result{}, err
	}
	items := splitItems(raw)
	if p, ok := x.Step.String("items_path"); ok && p != "" {
		var doc any
		if err := json.Unmarshal([]byte(raw), &doc); err != nil {
			return Result{}, fmt.Errorf("items_path needs JSON items: %v", err)
		}
		got, ok := jsonPath(doc, p)
		if !ok {
			return Result{}, fmt.Errorf("items_path %q is not a JSONPath this engine reads", p)
		}
		if len(got) == 1 {
			if arr, isArr := got[0].([]any); isArr {
				got = arr
			}
		}
		items = items[:0]
		for _, g := range got {
			items = append(items, stringify(g))
		}
	}
	maxItems := 100
	if n, ok := x.Step.Int("max_items"); ok && n > 0 {
		maxItems = n
	}
	maxItems = min(maxItems, maxForEachItems)
	if len(items) > maxItems {
		items = items[:maxItems]
	}
	conc := 1
	if n, ok := x.Step.Int("concurrency"); ok && n > 0 {
		conc = n
	}
	outs := make([]string, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i, item := range items {
		if gctx.Err() != nil {
			break // cancelled, or an item failed: start no more
		}
		g.Go(func() error {
			out, stopped, err := x.RunSteps(gctx, x.Step.Body, item, x.Step.ID+"["+strconv.Itoa(i)+"]/")
			if !stopped {
				outs[i] = out
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	// The JSON array is longer than its elements together: refuse it
	// before building it when they alone are too long.
	if max := x.x.budget.limits.MaxStepOutputBytes; totalLen(outs, "") > max {
		return Result{}, stepOutputError("the items' combined output", max)
	}
	b := marshalText(outs)
	return Result{Output: string(b), ContentType: "application/json"}, nil
}

// splitItems reads a JSON array (each element as text) or one item per
// non-empty line.
func splitItems(raw string) []string {
	var arr []any
	if json.Unmarshal([]byte(strings.TrimSpace(raw)), &arr) == nil {
		out := make([]string, len(arr))
		for i, v := range arr {
			out[i] = stringify(v)
		}
		return out
	}
	var out []string
	for _, line := range strings.Split(raw, "\n") {
		if strings.TrimSpace(line) != "" {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// stepMerge waits for every step its template references, then renders it.
func stepMerge(ctx context.Context, x *Exec) (Result, error) {
	tpl, _ := x.Step.String("template")
	for _, ph := range definition.ParsePlaceholders(tpl) {
		if ph.Kind == definition.PlaceholderStep && ph.StepID != "" {
			if _, exists := x.x.parents[ph.StepID]; exists {
				if err := x.WaitFor(ctx, ph.StepID); err != nil {
					return Result{}, err
				}
			}
		}
	}
	out, err := x.Render(tpl)
	return Result{Output: out}, err
}

func stepJoin(_ context.Context, x *Exec) (Result, error) {
	outs, _ := x.Extra["branch_outputs"].([]string)
	format, _ := x.Step.String("format")
	if format == "json_array" {
		if outs == nil {
			outs = []string{}
		}
		if max := x.x.budget.limits.MaxStepOutputBytes; totalLen(outs, "") > max {
			return Result{}, stepOutputError("the joined output", max)
		}
		b := marshalText(outs)
		return Result{Output: string(b), ContentType: "application/json", Final: true}, nil
	}
	sep, ok := x.Step.String("separator")
	if !ok {
		sep = "\n\n"
	}
	if max := x.x.budget.limits.MaxStepOutputBytes; totalLen(outs, sep) > max {
		return Result{}, stepOutputError("the joined output", max)
	}
	return Result{Output: strings.Join(outs, sep), Final: true}, nil
}

// totalLen is the length of strings.Join(parts, sep), computed without
// building it.
func totalLen(parts []string, sep string) int64 {
	var n int64
	for i, p := range parts {
		if i > 0 {
			n += int64(len(sep))
		}
		n += int64(len(p))
	}
	return n
}

func stepDisplayResult(_ context.Context, x *Exec) (Result, error) {
	out, err := x.Field("template", "{{input}}")
	ct := ""
	if html, _ := x.Step.Bool("html_format"); html {
		ct = "text/html"
	}
	return Result{Output: out, ContentType: ct, Final: true}, err
}

func stepRetry(_ context.Context, x *Exec) (Result, error) {
	target, _ := x.Step.String("target_step_id")
	max, ok := x.Step.Int("max_retries")
	if !ok || max < 1 {
		max = 1
	}
	if target == "" {
		return Result{}, fmt.Errorf("retry needs target_step_id")
	}
	return Result{Output: x.Input}, &retrySignal{target: target, max: max}
}

// stepStreamingResult finalises the parent prompt_call's reply, which was
// streamed token by token as the parent ran.
// When an overseer held the parent's tokens, the checked reply is streamed
// now, whole.
func stepStreamingResult(ctx context.Context, x *Exec) (Result, error) {
	if parent := x.x.parents[x.Step.ID]; x.Run.Priority && parent != nil && x.x.holdStream(parent.ID) {
		ts := x.newTokenStream(ctx)
		if x.Input != "" {
			ts.add(x.Input)
		}
		if err := ts.close(1); err != nil {
			return Result{}, err
		}
	}
	return Result{Output: x.Input, Final: true}, nil
}

func stepHumanInTheLoop(ctx context.Context, x *Exec) (Result, error) {
	instructions, err := x.Field("instructions", "")
	if err != nil {
		return Result{}, err
	}
	approved, edited, err := x.Host().AwaitHuman(ctx, x.Run, x.Key, instructions, x.Input, x.Step.Config)
	if err != nil {
		return Result{}, err
	}
	if !approved {
		return Result{Output: x.Input, Stop: true}, nil
	}
	out := x.Input
	if allow, _ := x.Step.Bool("allow_edit"); allow && edited != "" {
		out = edited
	}
	return Result{Output: out}, nil
}
