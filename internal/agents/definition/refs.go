package definition

import (
	"context"
	"sort"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// RefKind is the kind of account entity a definition refers to. The values
// double as the `category` of preview-import's unresolved_refs.
type RefKind string

// Entity kinds a definition can reference.
const (
	RefKnowledgeBase    RefKind = "knowledge_base"
	RefMemoryBank       RefKind = "memory_bank"
	RefSourceConnection RefKind = "source_connection"
	RefAgent            RefKind = "agent"
	RefUser             RefKind = "user"
)

// RefKinds lists the kinds in manifest order.
func RefKinds() []RefKind {
	return []RefKind{RefKnowledgeBase, RefMemoryBank, RefSourceConnection, RefAgent, RefUser}
}

// Resolver answers whether an entity exists in the caller's account. The
// store implements it; an error (database down) aborts validation, a false
// answer is a validation problem.
type Resolver interface {
	Exists(ctx context.Context, kind RefKind, id string) (bool, error)
}

// AgentStates is what a Resolver may also answer: whether an agent of the
// account is paused. Validation refuses a call_agent step naming a paused
// agent, which could only fail at run time.
type AgentStates interface {
	AgentPaused(ctx context.Context, id string) (bool, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(ctx context.Context, kind RefKind, id string) (bool, error)

// Exists calls f.
func (f ResolverFunc) Exists(ctx context.Context, kind RefKind, id string) (bool, error) {
	return f(ctx, kind, id)
}

// Ref is one reference to an account entity inside a payload.
type Ref struct {
	Kind   RefKind `json:"kind"`
	ID     string  `json:"id"`
	Path   string  `json:"path"`              // where the id sits in the payload
	StepID string  `json:"step_id,omitempty"` // the referring step; "" for the trigger
}

// Location is the form used in preview-import's `locations`: "step:<id>" or
// "trigger".
func (r Ref) Location() string {
	if r.StepID == "" {
		return "trigger"
	}
	return "step:" + r.StepID
}

// refKeys are the configuration keys whose values are entity ids. They are
// recognised by name at the top level of every step's configuration and
// inside prompt_call tool objects, so that fields of a newer exporter that
// follow the naming convention are still found (and remapped).
var refKeys = map[string]RefKind{
	"knowledge_base_id":     RefKnowledgeBase,
	"knowledge_base_ids":    RefKnowledgeBase,
	"memory_bank_id":        RefMemoryBank,
	"memory_bank_ids":       RefMemoryBank,
	"source_connection_id":  RefSourceConnection,
	"source_connection_ids": RefSourceConnection,
	"agent_id":              RefAgent,
	"agent_ids":             RefAgent,
	"assignee_user_ids":     RefUser,
	"user_id":               RefUser,
	"user_ids":              RefUser,
}

// refSlot is one place holding an id, with a setter for remapping.
type refSlot struct {
	Ref
	set func(string)
}

// scanRefs reports every literal id slot of the workflow. Values holding a
// placeholder are passed too (dynamic is true) so the validator can warn.
func (d *Definition) scanRefs(base string, fn func(s refSlot, dynamic bool)) {
	d.Walk(base, func(v Visit) bool {
		scanConfigRefs(v.Step.Config, v.Path, v.Step.ID, fn)
		if tools, ok := v.Step.Config["tools"].([]any); ok {
			for i, t := range tools {
				if m, ok := t.(map[string]any); ok {
					scanConfigRefs(m, indexPath(fieldPath(v.Path, "tools"), i), v.Step.ID, fn)
				}
			}
		}
		return true
	})
}

func scanConfigRefs(m map[string]any, path, stepID string, fn func(refSlot, bool)) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if _, ok := refKeys[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys) // map order is random; callers want a stable list
	for _, k := range keys {
		kind := refKeys[k]
		p := fieldPath(path, k)
		switch t := m[k].(type) {
		case string:
			if t == "" {
				continue
			}
			fn(refSlot{Ref: Ref{Kind: kind, ID: t, Path: p, StepID: stepID}, set: func(s string) { m[k] = s }}, hasPlaceholder(t))
		case []any:
			for i, e := range t {
				s, ok := e.(string)
				if !ok || s == "" {
					continue
				}
				list := t
				fn(refSlot{Ref: Ref{Kind: kind, ID: s, Path: indexPath(p, i), StepID: stepID}, set: func(s string) { list[i] = s }}, hasPlaceholder(s))
			}
		}
	}
}

// Refs lists every literal entity reference of the workflow in walk order
// (duplicates included, each with its own path). base is the path of the
// definition in the payload ("" for a bare definition).
func (d *Definition) Refs(base string) []Ref {
	var out []Ref
	d.scanRefs(base, func(s refSlot, dynamic bool) {
		if !dynamic {
			out = append(out, s.Ref)
		}
	})
	return out
}

// RefIDs groups references by kind, each id once, in first-seen order: the
// input of a dependency manifest or of an existence check.
func RefIDs(refs []Ref) map[RefKind][]string {
	out := map[RefKind][]string{}
	seen := map[Ref]bool{}
	for _, r := range refs {
		key := Ref{Kind: r.Kind, ID: r.ID}
		if seen[key] {
			continue
		}
		seen[key] = true
		out[r.Kind] = append(out[r.Kind], r.ID)
	}
	return out
}

// CallTargets returns the ids of the agents this definition calls through
// call_agent steps, sorted and without duplicates. GET /agents/{id}/callers
// keeps the live agents whose CallTargets contain id.
func (d *Definition) CallTargets() []string {
	set := map[string]bool{}
	d.Walk("", func(v Visit) bool {
		if v.Step.Type == StepCallAgent {
			if id, ok := v.Step.String("agent_id"); ok && id != "" && !hasPlaceholder(id) {
				set[id] = true
			}
		}
		return true
	})
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Calls reports whether the definition calls agentID.
func (d *Definition) Calls(agentID string) bool {
	for _, id := range d.CallTargets() {
		if id == agentID {
			return true
		}
	}
	return false
}

// Substitution records one id replaced by Remap.
type Substitution struct {
	Ref          // the reference as it was (old id)
	NewID string `json:"new_id"`
}

// Remap replaces, in place, every entity id of the workflow that is a key of
// m by its value (entity_remap of POST /agents and PUT /agents/{id}). Only
// reference fields are touched, never text that happens to contain an id.
// Empty target values are ignored.
func (d *Definition) Remap(base string, m map[string]string) []Substitution {
	if len(m) == 0 {
		return nil
	}
	var subs []Substitution
	d.scanRefs(base, func(s refSlot, dynamic bool) {
		if to, ok := m[s.ID]; ok && to != "" && to != s.ID && !dynamic {
			s.set(to)
			subs = append(subs, Substitution{Ref: s.Ref, NewID: to})
		}
	})
	return subs
}

func fieldPath(parent, key string) string { return canonjson.Key(parent, key) }

func indexPath(parent string, i int) string { return canonjson.Index(parent, i) }
