package definition

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Diff is what changed from one workflow to another, step by step: steps
// are matched by their id (the step key runs and journals use), so a step
// that moved keeps its identity and shows its new parent as a change.
type Diff struct {
	Added   []StepRef    `json:"added"`
	Removed []StepRef    `json:"removed"`
	Changed []StepChange `json:"changed"`
	// Workflow lists changes of the workflow's own fields (name,
	// description, tags, unknown keys kept on import).
	Workflow []FieldChange `json:"workflow"`
}

// StepRef names a step.
type StepRef struct {
	StepKey  string `json:"step_key"`
	StepType string `json:"step_type"`
}

// StepChange is a step present in both workflows whose fields differ.
type StepChange struct {
	StepKey  string        `json:"step_key"`
	StepType string        `json:"step_type"`
	Fields   []FieldChange `json:"fields"`
}

// FieldChange is one field of a step (or of the workflow) before and after;
// a side is null where the field is absent.
type FieldChange struct {
	Field  string          `json:"field"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

// Empty reports whether the two workflows are the same.
func (d Diff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0 && len(d.Workflow) == 0
}

// DiffDefinitions compares from (the older) with to (the newer). Steps of
// either side without an id cannot be matched and are left out; saved
// workflows always have ids.
func DiffDefinitions(from, to *Definition) Diff {
	before, after := stepFields(from), stepFields(to)
	d := Diff{Added: []StepRef{}, Removed: []StepRef{}, Changed: []StepChange{}, Workflow: []FieldChange{}}
	for _, key := range diffKeys(after) {
		a := after[key]
		b, ok := before[key]
		if !ok {
			d.Added = append(d.Added, StepRef{StepKey: key, StepType: a.typ})
			continue
		}
		if fields := diffFields(b.fields, a.fields); len(fields) > 0 {
			d.Changed = append(d.Changed, StepChange{StepKey: key, StepType: a.typ, Fields: fields})
		}
	}
	for _, key := range diffKeys(before) {
		if _, ok := after[key]; !ok {
			d.Removed = append(d.Removed, StepRef{StepKey: key, StepType: before[key].typ})
		}
	}
	d.Workflow = diffFields(workflowFields(from), workflowFields(to))
	return d
}

// Summary says in one line what changed ("first version" when from is
// nil), bounded in length.
func (d Diff) Summary() string {
	var parts []string
	name := func(refs []StepRef) string {
		keys := make([]string, len(refs))
		for i, r := range refs {
			keys[i] = r.StepKey
		}
		return strings.Join(keys, ", ")
	}
	if len(d.Added) > 0 {
		parts = append(parts, "added "+name(d.Added))
	}
	if len(d.Removed) > 0 {
		parts = append(parts, "removed "+name(d.Removed))
	}
	if len(d.Changed) > 0 {
		items := make([]string, len(d.Changed))
		for i, c := range d.Changed {
			fields := make([]string, len(c.Fields))
			for j, f := range c.Fields {
				fields[j] = f.Field
			}
			items[i] = c.StepKey + " (" + strings.Join(fields, ", ") + ")"
		}
		parts = append(parts, "changed "+strings.Join(items, ", "))
	}
	if len(d.Workflow) > 0 {
		fields := make([]string, len(d.Workflow))
		for i, f := range d.Workflow {
			fields[i] = f.Field
		}
		parts = append(parts, "workflow "+strings.Join(fields, ", "))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return clipSummary(strings.Join(parts, "; "))
}

// maxSummary bounds a summary: it is one line of a list.
const maxSummary = 200

func clipSummary(s string) string {
	if len(s) <= maxSummary {
		return s
	}
	cut := maxSummary - len("…")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

type stepSnapshot struct {
	typ    string
	fields map[string]json.RawMessage
}

// stepFields flattens a workflow to each step's own fields, its sub-trees
// left out (they are steps of their own) but its parent kept, so a move
// is a change.
func stepFields(d *Definition) map[string]stepSnapshot {
	out := map[string]stepSnapshot{}
	d.Walk("", func(v Visit) bool {
		s := v.Step
		if s.ID == "" {
			return true
		}
		f := map[string]json.RawMessage{}
		for k, val := range s.Config {
			f[k] = canonicalValue(val)
		}
		f["step_type"] = canonicalValue(string(s.Type))
		if s.Name != "" {
			f["name"] = canonicalValue(s.Name)
		}
		parent := ""
		if v.Parent != nil {
			parent = v.Parent.ID
		}
		f["parent"] = canonicalValue(parent)
		f["nested_as"] = canonicalValue(string(v.Relation))
		if s.Cases != nil {
			matches := make([]any, len(s.Cases))
			for i, c := range s.Cases {
				if c != nil {
					matches[i] = c.Match
				}
			}
			f["cases"] = canonicalValue(matches)
		}
		out[s.ID] = stepSnapshot{typ: string(s.Type), fields: f}
		return true
	})
	return out
}

func workflowFields(d *Definition) map[string]json.RawMessage {
	f := map[string]json.RawMessage{}
	if d == nil {
		return f
	}
	for k, v := range d.Extra {
		f[k] = canonicalValue(v)
	}
	if d.Name != "" {
		f["name"] = canonicalValue(d.Name)
	}
	if d.Description != "" {
		f["description"] = canonicalValue(d.Description)
	}
	if d.Tags != nil {
		f["tags"] = canonicalValue(d.Tags)
	}
	return f
}

func diffFields(before, after map[string]json.RawMessage) []FieldChange {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	out := []FieldChange{}
	for _, k := range diffKeys(keys) {
		b, a := before[k], after[k]
		if bytes.Equal(b, a) {
			continue
		}
		out = append(out, FieldChange{Field: k, Before: orNull(b), After: orNull(a)})
	}
	return out
}

func orNull(b json.RawMessage) json.RawMessage {
	if b == nil {
		return json.RawMessage("null")
	}
	return b
}

// canonicalValue is v as JSON with object keys sorted (encoding/json sorts map
// keys), so equal values compare equal byte for byte.
func canonicalValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

func diffKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
