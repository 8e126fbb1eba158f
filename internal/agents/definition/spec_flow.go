package definition

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Control-flow and text-shaping step types.
func flowSpecs() []*StepSpec {
	return []*StepSpec{
		{
			Type:    StepText,
			Group:   "Flow and text",
			Summary: "Emit a static (templated) text.",
			Doc:     "The output is `text` rendered; useful to seed a chain, fix a prompt, or end a branch with a literal.",
			Fields: []Field{
				{Name: "text", Kind: KindTemplate, Required: true, Doc: "The text to emit."},
			},
		},
		{
			Type:    StepRegexReplace,
			Group:   "Flow and text",
			Summary: "Reshape text through ordered regular-expression find/replace rules.",
			Doc:     "Applies `rules` in order to the input. Patterns use RE2 syntax (no look-around or back-references in patterns); replacements may refer to groups as `$1`, `${name}` or `\\1`. With no rules the step passes its input through, which is reported as a warning.",
			Fields: []Field{
				{Name: "rules", Kind: KindRegexRules, Doc: "Ordered list of `{\"pattern\", \"replacement\", \"flags\"}`; `flags` is a subset of `imsU`."},
			},
			rules: regexReplaceRules,
		},
		{
			Type:    StepGate,
			Group:   "Flow and text",
			Summary: "Continue to child_steps only when conditions hold; stop the chain otherwise.",
			Doc:     "Evaluates `conditions` (see *Conditions*) against the input. On a match the input passes unchanged to child_steps; otherwise this branch ends quietly.",
			Fields: []Field{
				{Name: "conditions", Kind: KindConditions, Required: true, Doc: "Rules to evaluate."},
			},
		},
		{
			Type:    StepRetry,
			Group:   "Flow and text",
			Summary: "Re-execute from an ancestor step (quality-control loop).",
			Doc:     "Jumps back to `target_step_id`, which must be an ancestor, at most `max_retries` times per run. Place a `gate` (or if_else/switch) between the target and the retry so it only fires when needed; an unconditional retry is reported as a warning. Cannot have children.",
			Leaf:    true,
			Fields: []Field{
				{Name: "target_step_id", Kind: KindStepID, Required: true, Doc: "Ancestor step to run again."},
				bounded(Field{Name: "max_retries", Kind: KindInteger, Required: true, Doc: "Retries per run."}, 1, 10),
			},
			rules: retryRules,
		},
		{
			Type:     StepIfElse,
			Group:    "Flow and text",
			Summary:  "Conditional dispatch to then_steps or else_steps.",
			Doc:      "Evaluates `conditions` (same shape as gate). On a match runs `then_steps`, otherwise the optional `else_steps`. The chosen branch's output flows to this step's own child_steps (the continuation). `display_result` and `streaming_result` are not allowed anywhere inside the branches: end each branch with a content-producing step and put the single display_result in child_steps.",
			Subtrees: []string{keyThenSteps, keyElseSteps},
			Fields: []Field{
				{Name: "conditions", Kind: KindConditions, Required: true, Doc: "Rules to evaluate."},
				{Name: "then_steps", Kind: KindSteps, Required: true, Doc: "Branch run on a match."},
				{Name: "else_steps", Kind: KindSteps, Doc: "Branch run otherwise; without it the input flows on unchanged."},
			},
			rules: ifElseRules,
		},
		{
			Type:     StepSwitch,
			Group:    "Flow and text",
			Summary:  "Dispatch on one discriminator to the first matching case.",
			Doc:      "Renders `discriminator` and runs the first case whose `match` equals it (when `match` is a list, any element may equal it), or `else_steps` when none does. Comparison is on the rendered text, numbers and booleans in their JSON spelling. The chosen branch's output flows to child_steps. `display_result` and `streaming_result` are not allowed inside cases or else_steps.",
			Subtrees: []string{keyCases, keyElseSteps},
			Fields: []Field{
				{Name: "discriminator", Kind: KindTemplate, Default: "{{input}}", Doc: "Value to dispatch on."},
				{Name: "cases", Kind: KindCases, Required: true, Doc: "List of `{\"match\": value-or-list, \"steps\": [...]}`; at least one."},
				{Name: "else_steps", Kind: KindSteps, Doc: "Branch run when no case matches."},
			},
			rules: switchRules,
		},
		{
			Type:     StepForEach,
			Group:    "Flow and text",
			Summary:  "Run a body of steps once per item of a list.",
			Doc:      "Renders `items` (default the input), reads it as a JSON array (or one item per non-empty line), optionally narrows it with `items_path`, and runs `body` for each item with the item as `{{input}}`. The output is a JSON array of the body's outputs, in item order, which flows to child_steps.",
			Subtrees: []string{keyBody},
			Fields: []Field{
				{Name: "body", Kind: KindSteps, Required: true, Doc: "Steps run per item; at least one."},
				{Name: "items", Kind: KindTemplate, Default: "{{input}}", Doc: "The list to iterate."},
				{Name: "items_path", Kind: KindString, Doc: "JSONPath selecting the array inside `items` (must start with `$`)."},
				bounded(Field{Name: "max_items", Kind: KindInteger, Default: 100, Doc: "Items beyond this are ignored."}, 1, 1000),
				bounded(Field{Name: "concurrency", Kind: KindInteger, Default: 1, Doc: "Items processed at once."}, 1, 32),
			},
			rules: forEachRules,
		},
		{
			Type:    StepMerge,
			Group:   "Flow and text",
			Summary: "Combine several step outputs into one templated output.",
			Doc:     "Renders `template`, typically from `{{step.<id>.output}}` references to earlier steps; it waits for the steps it references.",
			Fields: []Field{
				{Name: "template", Kind: KindTemplate, Required: true, Doc: "The combined output."},
			},
		},
		{
			Type:    StepJoin,
			Group:   "Flow and text",
			Summary: "Wait for parallel sibling branches and combine their final outputs.",
			Doc:     "Placed beside parallel branches (other child_steps of the same parent), it waits for each to finish and combines their final outputs, joined by `separator` or as a JSON array. Cannot have children: its output is final.",
			Leaf:    true,
			Fields: []Field{
				{Name: "format", Kind: KindString, Enum: []string{"text", "json_array"}, Default: "text", Doc: "Concatenate or return a JSON array."},
				{Name: "separator", Kind: KindString, Default: "\n\n", Doc: "Between outputs when format is text."},
			},
			rules: joinRules,
		},
		{
			Type:    StepDisplayResult,
			Group:   "Flow and text",
			Summary: "Show output to the user; the run's result.",
			Doc:     "Renders `template` (default the input) as the run output. Not allowed inside if_else or switch branches. Cannot have children.",
			Leaf:    true,
			Fields: []Field{
				{Name: "template", Kind: KindTemplate, Default: "{{input}}", Doc: "What to show."},
				{Name: "html_format", Kind: KindBoolean, Default: false, Doc: "Whether the output is HTML rather than text/Markdown."},
			},
		},
		{
			Type:    StepHumanInTheLoop,
			Group:   "Flow and text",
			Summary: "Park the run until a person approves (optionally edits) or rejects.",
			Doc:     "Notifies the assignees and waits. On approval the input (or the reviewer's edited version when `allow_edit`) flows to child_steps; on rejection the chain stops. Waiting time is reported as `hitl_wait_ms` and not billed as run time.",
			Fields: []Field{
				{Name: "instructions", Kind: KindTemplate, Required: true, Doc: "What the reviewer is asked to decide; shown with the input."},
				{Name: "assignee_user_ids", Kind: KindRefList, Ref: RefUser, Doc: "Users who may decide besides the account's owners and admins (who always may)."},
				bounded(Field{Name: "timeout_minutes", Kind: KindInteger, Default: 1440, Doc: "How long to wait for a decision."}, 1, 43200),
				{Name: "on_timeout", Kind: KindString, Enum: []string{"reject", "approve", "fail"}, Default: "reject", Doc: "What happens when nobody decides in time."},
				{Name: "allow_edit", Kind: KindBoolean, Default: false, Doc: "Let the reviewer edit the content passed on."},
				{Name: "notify_email", Kind: KindBoolean, Default: true, Doc: "E-mail the assignees when the run starts waiting. Stored only: Agentry sends no e-mail for it; reviewers find waiting runs with `agentry runs review list` (GET /agents/runs/reviews)."},
			},
		},
	}
}

func regexReplaceRules(c *checker, v Visit) {
	rules, ok := v.Step.Config["rules"].([]any)
	if !ok || len(rules) == 0 {
		c.warnf(CodePassThrough, v.Path, "regex_replace has no rules, so it passes its input through unchanged")
	}
}

func retryRules(c *checker, v Visit) {
	target, ok := v.Step.String("target_step_id")
	if !ok || target == "" {
		return
	}
	p := fieldPath(v.Path, "target_step_id")
	if target == v.Step.ID {
		c.errorf(CodeRetryTarget, p, "retry cannot target itself")
		return
	}
	idx := -1
	for i, a := range v.Ancestors {
		if a.ID == target {
			idx = i
		}
	}
	if idx < 0 {
		if c.hasStep(target) {
			c.errorf(CodeRetryTarget, p, "retry target %q must be an ancestor of the retry step", target)
		} else {
			c.errorf(CodeRetryTarget, p, "retry target %q does not exist", target)
		}
		return
	}
	for _, a := range v.Ancestors[idx+1:] {
		switch a.Type {
		case StepGate, StepIfElse, StepSwitch:
			return
		}
	}
	c.warnf(CodeUnconditionalRetry, v.Path, "no gate, if_else or switch between %q and this retry, so it always retries %s times", target, formatValue(v.Step.Config["max_retries"]))
}

func ifElseRules(c *checker, v Visit) {
	if v.Step.Then != nil && len(v.Step.Then) == 0 {
		c.warnf(CodeEmptyBranch, fieldPath(v.Path, keyThenSteps), "then_steps is empty; a match passes the input through unchanged")
	}
}

func switchRules(c *checker, v Visit) {
	s := v.Step
	if s.Cases != nil && len(s.Cases) == 0 {
		c.errorf(CodeMissingField, fieldPath(v.Path, keyCases), "switch needs at least one case")
	}
	seen := map[string]int{}
	for i, cs := range s.Cases {
		if cs == nil {
			continue
		}
		cp := indexPath(fieldPath(v.Path, keyCases), i)
		if cs.Match == nil {
			c.errorf(CodeMissingField, fieldPath(cp, keyCaseMatch), "a case needs a match value (a string, number, boolean or a list of them)")
			continue
		}
		values := []any{cs.Match}
		if list, ok := cs.Match.([]any); ok {
			values = list
			if len(list) == 0 {
				c.warnf(CodeUnreachableCase, fieldPath(cp, keyCaseMatch), "an empty match list never matches")
			}
		}
		for j, m := range values {
			mp := fieldPath(cp, keyCaseMatch)
			if _, isList := cs.Match.([]any); isList {
				mp = indexPath(mp, j)
			}
			if !isScalar(m) {
				c.errorf(CodeInvalidType, mp, "match values must be strings, numbers or booleans")
				continue
			}
			key := matchText(m)
			if first, dup := seen[key]; dup {
				c.warnf(CodeUnreachableCase, mp, "%q is already matched by case %d, so this never matches it", key, first)
				continue
			}
			seen[key] = i
		}
		if cs.Steps != nil && len(cs.Steps) == 0 {
			c.warnf(CodeEmptyBranch, fieldPath(cp, keyCaseSteps), "case has no steps; a match passes the input through unchanged")
		}
	}
}

func forEachRules(c *checker, v Visit) {
	if v.Step.Body != nil && len(v.Step.Body) == 0 {
		c.errorf(CodeMissingField, fieldPath(v.Path, keyBody), "for_each needs at least one body step")
	}
	if p, ok := v.Step.String("items_path"); ok && p != "" && p[0] != '$' {
		c.errorf(CodeInvalidValue, fieldPath(v.Path, "items_path"), "a JSONPath must start with $")
	}
}

func joinRules(c *checker, v Visit) {
	siblings := 0
	var list []*Step
	if v.Parent == nil {
		list = c.def.Steps
	} else {
		switch v.Relation {
		case RelChild:
			list = v.Parent.Children
		case RelThen:
			list = v.Parent.Then
		case RelElse:
			list = v.Parent.Else
		case RelBody:
			list = v.Parent.Body
		case RelCase:
			for _, cs := range v.Parent.Cases {
				if cs != nil && containsStep(cs.Steps, v.Step) {
					list = cs.Steps
				}
			}
		}
	}
	for _, s := range list {
		if s != nil && s != v.Step {
			siblings++
		}
	}
	if siblings == 0 {
		c.warnf(CodeUselessJoin, v.Path, "join has no sibling branches to wait for")
	}
}

func containsStep(list []*Step, s *Step) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, bool:
		return true
	}
	return isNumber(v)
}

// matchText is the text a switch compares a match value as: strings as
// they are, numbers and booleans in their JSON spelling.
func matchText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case int:
		return strconv.Itoa(t)
	}
	return formatValue(v)
}

// formatValue renders a scalar the way messages and comparisons show it.
func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	if f, ok := toFloat(v); ok {
		return fmt.Sprint(f)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
