package modelalerts

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/models/catalog"
)

// modelUse is one catalog model and the steps that name it.
type modelUse struct {
	ModelID string
	StepIDs []string
}

// modelsInUse lists the catalog models a definition's steps name in their
// "model" field, in id order. With promptOnly, only prompt_call steps
// count: the auto-upgrade strategy is about prompt models, while alerts
// concern every step that calls a model. Ids the catalog does not know
// are skipped; the agents area reports those when the agent is saved.
func modelsInUse(cat *catalog.Catalog, d *def.Definition, promptOnly bool) []modelUse {
	by := map[string]*modelUse{}
	for _, st := range d.AllSteps() {
		if promptOnly && st.Type != def.StepPromptCall {
			continue
		}
		name, ok := st.String("model")
		if !ok || name == "" {
			continue
		}
		m, ok := cat.Get(name)
		if !ok {
			continue
		}
		u := by[m.ID]
		if u == nil {
			u = &modelUse{ModelID: m.ID}
			by[m.ID] = u
		}
		u.StepIDs = append(u.StepIDs, st.ID)
	}
	out := make([]modelUse, 0, len(by))
	for _, u := range by {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModelID < out[j].ModelID })
	return out
}

// parse reads a stored definition. A definition that does not parse
// cleanly is never rewritten: writing back a best-effort reading could
// drop what it failed to read.
func parse(raw json.RawMessage) (*def.Definition, error) {
	d, probs, err := def.ParseDefinition(raw)
	if err != nil {
		return nil, err
	}
	if errs := probs.Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("definition has %d problems (first: %s)", len(errs), errs[0].Message)
	}
	return d, nil
}

// errUnchanged says a rewrite found nothing to change (the definition
// moved on since it was read).
var errUnchanged = errors.New("no step to change")

// setModel points the listed steps that still name model from (by id or
// API name) at model to, and returns the new definition JSON and its call
// targets.
func setModel(cat *catalog.Catalog, raw json.RawMessage, stepIDs []string, from, to string) (json.RawMessage, []string, error) {
	d, err := parse(raw)
	if err != nil {
		return nil, nil, err
	}
	changed := 0
	for _, id := range stepIDs {
		st := d.Find(id)
		if st == nil {
			continue
		}
		name, _ := st.String("model")
		if m, ok := cat.Get(name); !ok || m.ID != from {
			continue
		}
		st.Config["model"] = to
		changed++
	}
	if changed == 0 {
		return nil, nil, errUnchanged
	}
	body, err := json.Marshal(d)
	if err != nil {
		return nil, nil, err
	}
	return body, d.CallTargets(), nil
}
