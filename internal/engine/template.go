package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Templates: {{expr}} or {{expr | default: "text"}}. Expressions:
//
//	input, agent.input, agent.run_id, agent.id
//	metadata.<key>[.<path>]
//	step.<id>.output[.<json path>], step.<id>.input
//	agent.attachments, attachments
//	attachments[0] / attachments["name"] / attachments[*.csv] [.text|.name]
//	any extra variable a step supplies (findings, item…)
//
// A reference that does not resolve is an error naming it, unless a
// default is given: silently rendering "" would hide a broken workflow.

// lookupFunc resolves one expression.
type lookupFunc func(expr string) (string, error)

// render expands tpl, refusing to produce more than max bytes: the output
// stops growing at the limit, so a template repeating a large value many
// times fails before it is held in memory.
func render(tpl string, lookup lookupFunc, max int64) (string, error) {
	if !strings.Contains(tpl, "{{") {
		if int64(len(tpl)) > max {
			return "", stepOutputError("rendered template", max)
		}
		return tpl, nil
	}
	b := newBoundedBuilder("rendered template", max)
	rest := tpl
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			b.WriteString(rest) // an unclosed {{ is literal text
			return b.String()
		}
		b.WriteString(rest[:i])
		expr := strings.TrimSpace(rest[i+2 : i+2+j])
		val, err := evalExpr(expr, lookup)
		if err != nil {
			return "", err
		}
		b.WriteString(val)
		if b.err != nil {
			return "", b.err
		}
		rest = rest[i+2+j+2:]
	}
}

func evalExpr(expr string, lookup lookupFunc) (string, error) {
	main, def, hasDef := splitDefault(expr)
	v, err := lookup(main)
	if err != nil {
		if hasDef {
			return def, nil
		}
		return "", err
	}
	return v, nil
}

// splitDefault separates `expr | default: "x"` (quotes optional).
func splitDefault(expr string) (string, string, bool) {
	i := strings.LastIndex(expr, "|")
	if i < 0 {
		return expr, "", false
	}
	filter := strings.TrimSpace(expr[i+1:])
	name, arg, ok := strings.Cut(filter, ":")
	if !ok || strings.TrimSpace(name) != "default" {
		return expr, "", false
	}
	arg = strings.TrimSpace(arg)
	if uq, err := strconv.Unquote(arg); err == nil {
		arg = uq
	} else if len(arg) >= 2 && arg[0] == '\'' && arg[len(arg)-1] == '\'' {
		arg = arg[1 : len(arg)-1]
	}
	return strings.TrimSpace(expr[:i]), arg, true
}

func missing(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMissingReference, fmt.Sprintf(format, args...))
}

// lookup resolves expressions against the run state.
func (ex *Exec) lookup(extra map[string]string) lookupFunc {
	x := ex.x
	return func(expr string) (string, error) {
		if v, ok := extra[expr]; ok {
			return v, nil
		}
		switch expr {
		case "input":
			return ex.Input, nil
		case "agent.input":
			return x.run.Input, nil
		case "agent.run_id", "run_id":
			return x.run.ID, nil
		case "agent.id", "agent_id":
			return x.run.AgentID, nil
		case "agent.attachments", "attachments":
			return attachmentsText(x.run.Attachments), nil
		}
		switch {
		case strings.HasPrefix(expr, "metadata."):
			return lookupMetadata(x.run.Metadata, strings.TrimPrefix(expr, "metadata."))
		case strings.HasPrefix(expr, "step."):
			return ex.lookupStep(strings.TrimPrefix(expr, "step."))
		case strings.HasPrefix(expr, "attachments["):
			return lookupAttachment(x.run.Attachments, strings.TrimPrefix(expr, "attachments["))
		}
		if base, field, ok := strings.Cut(expr, "."); ok {
			if v, ok := extra[base]; ok {
				return jsonPathString(v, field, expr)
			}
		}
		return "", missing("{{%s}} names nothing this step can see", expr)
	}
}

func (ex *Exec) lookupStep(rest string) (string, error) {
	// rest is <id>.output[.path] or <id>.input; ids may not contain dots.
	id, sel, ok := strings.Cut(rest, ".")
	if !ok {
		return "", missing("{{step.%s}} needs .output or .input", rest)
	}
	x := ex.x
	x.mu.Lock()
	io, found := x.outputs[ex.Scope+id]
	if !found {
		io, found = x.outputs[id]
	}
	x.mu.Unlock()
	if !found {
		if _, exists := x.parents[id]; !exists {
			return "", missing("{{step.%s}}: there is no step %q", rest, id)
		}
		return "", missing("{{step.%s}}: step %q has not run before this one", rest, id)
	}
	field, sub, _ := strings.Cut(sel, ".")
	var v string
	switch field {
	case "output":
		v = io.output
	case "input":
		v = io.input
	default:
		return "", missing("{{step.%s}}: use .output or .input", rest)
	}
	if sub == "" {
		return v, nil
	}
	return jsonPathString(v, sub, "step."+rest)
}

// jsonPathString reads a dotted path (a.b[0].c) out of a JSON text.
func jsonPathString(doc, p, expr string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return "", missing("{{%s}}: the value is not JSON, so .%s cannot be read", expr, p)
	}
	got, ok := jsonPath(v, "$."+p)
	if !ok || len(got) == 0 {
		return "", missing("{{%s}}: nothing at %s", expr, p)
	}
	return stringify(got[0]), nil
}

func lookupMetadata(md map[string]any, p string) (string, error) {
	key, sub, _ := strings.Cut(p, ".")
	v, ok := md[key]
	if !ok {
		return "", missing("{{metadata.%s}}: the run has no metadata %q", p, key)
	}
	if sub == "" {
		return stringify(v), nil
	}
	got, ok := jsonPath(v, "$."+sub)
	if !ok || len(got) == 0 {
		return "", missing("{{metadata.%s}}: nothing at %s", p, sub)
	}
	return stringify(got[0]), nil
}

// stringify renders a JSON value for a template: strings as they are,
// everything else as JSON.
func stringify(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	}
	return string(marshalText(v))
}

// marshalText writes JSON for humans and templates: <, > and & stay as they
// are rather than becoming \u003c escapes meant for HTML embedding.
func marshalText(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

func attachmentsText(as []Attachment) string {
	var b strings.Builder
	for i, a := range as {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## %s\n\n%s", a.Name, a.Text)
	}
	return b.String()
}

// lookupAttachment resolves `0]`, `"name"]`, `*.csv]` with an optional
// `.text` / `.name` / `.content_type` after the bracket.
func lookupAttachment(as []Attachment, rest string) (string, error) {
	end := strings.LastIndex(rest, "]")
	if end < 0 {
		return "", missing("{{attachments[%s}}: unclosed selector", rest)
	}
	sel, field := strings.TrimSpace(rest[:end]), strings.TrimPrefix(rest[end+1:], ".")
	var picked []Attachment
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 0 || n >= len(as) {
			return "", missing("{{attachments[%d]}}: the run has %d file(s)", n, len(as))
		}
		picked = as[n : n+1]
	} else {
		name := strings.Trim(sel, `"'`)
		glob := strings.ContainsAny(name, "*?[")
		for _, a := range as {
			if (!glob && a.Name == name) || (glob && matchGlob(name, a.Name)) {
				picked = append(picked, a)
			}
		}
		if len(picked) == 0 {
			return "", missing("{{attachments[%s]}}: no uploaded file matches", sel)
		}
	}
	switch field {
	case "", "text":
		if field == "" && len(picked) > 1 {
			return attachmentsText(picked), nil
		}
		texts := make([]string, len(picked))
		for i, a := range picked {
			texts[i] = a.Text
		}
		return strings.Join(texts, "\n\n"), nil
	case "name":
		names := make([]string, len(picked))
		for i, a := range picked {
			names[i] = a.Name
		}
		return strings.Join(names, "\n"), nil
	case "content_type":
		return picked[0].ContentType, nil
	}
	return "", missing("{{attachments[%s].%s}}: use .text, .name or .content_type", sel, field)
}

func matchGlob(pattern, name string) bool {
	// fnmatch's [!a-z] is path.Match's [^a-z].
	ok, err := path.Match(strings.ReplaceAll(pattern, "[!", "[^"), name)
	return err == nil && ok
}
