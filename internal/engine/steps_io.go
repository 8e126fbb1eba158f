package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/andybalholm/cascadia"
	"github.com/antchfx/xmlquery"
	"golang.org/x/net/html"
)

// stepExtractContent selects part of JSON (JSONPath), HTML (CSS selector)
// or XML (XPath) input.
func stepExtractContent(_ context.Context, x *Exec) (Result, error) {
	format, _ := x.Step.String("format")
	path, _ := x.Step.String("path")
	multiple, _ := x.Step.Bool("multiple")
	var matches []string
	switch format {
	case "json":
		var doc any
		if err := json.Unmarshal([]byte(x.Input), &doc); err != nil {
			return Result{}, fmt.Errorf("the input is not JSON: %v", err)
		}
		got, ok := jsonPath(doc, path)
		if !ok {
			return Result{}, fmt.Errorf("%q is not a JSONPath this engine reads", path)
		}
		for _, g := range got {
			matches = append(matches, stringify(g))
		}
	case "html":
		sel, err := cascadia.Compile(path)
		if err != nil {
			return Result{}, fmt.Errorf("CSS selector %q: %v", path, err)
		}
		doc, err := html.Parse(strings.NewReader(x.Input))
		if err != nil {
			return Result{}, fmt.Errorf("the input is not HTML: %v", err)
		}
		for _, n := range cascadia.QueryAll(doc, sel) {
			matches = append(matches, strings.TrimSpace(nodeText(n)))
		}
	case "xml":
		doc, err := xmlquery.Parse(strings.NewReader(x.Input))
		if err != nil {
			return Result{}, fmt.Errorf("the input is not XML: %v", err)
		}
		nodes, err := xmlquery.QueryAll(doc, path)
		if err != nil {
			return Result{}, fmt.Errorf("XPath %q: %v", path, err)
		}
		for _, n := range nodes {
			matches = append(matches, strings.TrimSpace(n.InnerText()))
		}
	default:
		return Result{}, fmt.Errorf("format %q: want json, html or xml", format)
	}
	if len(matches) == 0 {
		if def, ok := x.Step.String("default_value"); ok {
			return Result{Output: def}, nil
		}
		return Result{}, fmt.Errorf("nothing matches %q", path)
	}
	if multiple {
		b := marshalText(matches)
		return Result{Output: string(b), ContentType: "application/json"}, nil
	}
	return Result{Output: matches[0]}, nil
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// maxResponseBytes bounds what a webhook_call reads back.
const maxResponseBytes = 10 << 20

// stepWebhookCall sends the rendered body to a URL through the SSRF-guarded
// client. The Idempotency-Key is stable across attempts of the same step of
// the same run, so a receiver can drop the duplicate a retry may cause.
func stepWebhookCall(ctx context.Context, x *Exec) (Result, error) {
	url, err := x.Field("url", "")
	if err != nil {
		return Result{}, err
	}
	body, err := x.Field("body", "{{input}}")
	if err != nil {
		return Result{}, err
	}
	method, _ := x.Step.String("method")
	if method == "" {
		method = http.MethodPost
	}
	timeout := 30 * time.Second
	if n, ok := x.Step.Int("timeout_seconds"); ok && n > 0 {
		timeout = time.Duration(n) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader([]byte(body)))
	if err != nil {
		return Result{}, fmt.Errorf("webhook url %q: %v", url, err)
	}
	ct, _ := x.Step.String("content_type")
	if ct == "" {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("User-Agent", "Agentry-Webhook/1")
	req.Header.Set("Idempotency-Key", x.Run.ID+":"+x.Key)
	if hs, ok := x.Step.Config["headers"].(map[string]any); ok {
		for k, v := range hs {
			val, err := x.Render(stringify(v))
			if err != nil {
				return Result{}, err
			}
			req.Header.Set(k, val)
		}
	}
	resp, err := x.Engine().webhooks.client().Do(req)
	if err != nil {
		return Result{}, err
	}
	defer resp.Body.Close()
	// One byte past the step limit is enough to know the reply is too long
	// to be the step's output; the engine refuses it after.
	data, err := io.ReadAll(io.LimitReader(resp.Body, min(maxResponseBytes, x.x.budget.limits.MaxStepOutputBytes+1)))
	if err != nil {
		return Result{}, err
	}
	if resp.StatusCode >= 300 {
		err := fmt.Errorf("webhook answered %s: %s", resp.Status, truncate(string(data), 300))
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return Result{}, transientError{err}
		}
		return Result{}, err
	}
	if include, ok := x.Step.Bool("include_response"); ok && !include {
		return Result{Output: x.Input}, nil
	}
	return Result{Output: string(data), ContentType: mediaType(resp.Header.Get("Content-Type"))}, nil
}

func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.TrimSpace(mt)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// stepCallAgent runs another agent of the account as a sub-run. The engine
// refuses cycles and bounds depth before the host starts anything. The
// agent_id may be a template ({{metadata.agent}}): it is rendered, never
// passed on literally. The host refuses an agent that is absent or paused.
func stepCallAgent(ctx context.Context, x *Exec) (Result, error) {
	target, err := x.Field("agent_id", "")
	if err != nil {
		return Result{}, fmt.Errorf("agent_id: %w", err)
	}
	target = strings.TrimSpace(target)
	if target == "" {
		return Result{}, errors.New("agent_id is empty: call_agent needs the id of the agent to run")
	}
	if target == x.Run.AgentID {
		return Result{}, errors.New("an agent may not call itself")
	}
	for _, a := range x.Run.CallChain {
		if a == target {
			return Result{}, fmt.Errorf("call cycle: agent %s is already running above this step", target)
		}
	}
	if len(x.Run.CallChain)+1 >= x.Engine().maxCallDepth {
		return Result{}, fmt.Errorf("call_agent depth limit (%d) reached", x.Engine().maxCallDepth)
	}
	input, err := x.Field("input", "{{input}}")
	if err != nil {
		return Result{}, err
	}
	wait := true
	if w, ok := x.Step.Bool("wait_for_completion"); ok {
		wait = w
	}
	timeout := 600 * time.Second
	if n, ok := x.Step.Int("timeout_seconds"); ok && n > 0 {
		timeout = time.Duration(n) * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := x.Host().CallAgent(cctx, x.Run, target, input, wait)
	if err != nil {
		return Result{}, err
	}
	if !wait {
		out = input
	}
	return Result{Output: out}, nil
}
