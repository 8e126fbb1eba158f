package definition

import (
	"encoding/json"
	"math"
	"strconv"
)

// Definition is an agent's workflow: a named tree of steps. In JSON it is
// {"name", "description", "tags", "child_steps"}; keys this package does not
// know are kept in Extra and written back unchanged, so a definition from a
// newer exporter survives an import/export round trip.
type Definition struct {
	Name        string
	Description string
	Tags        []string // nil: key absent; empty: "tags": []
	Steps       []*Step  // the root chain, "child_steps"
	Extra       map[string]any

	// stepsKey is the JSON key the root steps were read from ("steps" in
	// legacy payloads), so problem paths point at what the client sent.
	stepsKey string
}

// Step is one node of the workflow. Its type-specific configuration lives in
// Config, flat beside id/name/step_type in JSON (see the spec tables for the
// fields of each type). The sub-trees are explicit:
//
//   - Children: child_steps, run after this step with its output as input;
//     several children run as parallel branches.
//   - Then, Else: then_steps/else_steps of if_else, else_steps of switch.
//   - Cases: cases of switch.
//   - Body: body of for_each, run once per item.
//
// A nil slice means the key was absent; an empty one is written as [].
type Step struct {
	ID       string
	Name     string
	Type     StepType
	Config   map[string]any
	Children []*Step
	Then     []*Step
	Else     []*Step
	Cases    []*Case
	Body     []*Step

	// badID and badType mark values of the wrong JSON type, already
	// reported while decoding, so validation does not report them twice.
	badID, badType bool
}

// Case is one arm of a switch: it runs Steps when the rendered discriminator
// equals Match (or, when Match is a list, any of its elements).
type Case struct {
	Match any
	Steps []*Step
	Extra map[string]any
}

// MarshalJSON writes the flat JSON form of the definition.
func (d *Definition) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.toJSONValue())
}

// UnmarshalJSON reads a definition, failing on the first structural problem
// (wrong types, non-object steps). Use ParseDefinition to get every problem
// with its path instead.
func (d *Definition) UnmarshalJSON(b []byte) error {
	parsed, probs, err := ParseDefinition(b)
	if err != nil {
		return err
	}
	if errs := probs.Errors(); len(errs) > 0 {
		return errs[0]
	}
	*d = *parsed
	return nil
}

// MarshalJSON writes the flat JSON form of the step.
func (s *Step) MarshalJSON() ([]byte, error) {
	return json.Marshal(s.toJSONValue())
}

// toJSONValue renders the definition as a generic JSON tree (maps and
// slices), the form canonjson prints and remaps walk.
func (d *Definition) toJSONValue() map[string]any {
	m := make(map[string]any, len(d.Extra)+4)
	for k, v := range d.Extra {
		m[k] = v
	}
	if d.Name != "" {
		m["name"] = d.Name
	}
	if d.Description != "" {
		m["description"] = d.Description
	}
	if d.Tags != nil {
		tags := make([]any, len(d.Tags))
		for i, t := range d.Tags {
			tags[i] = t
		}
		m["tags"] = tags
	}
	steps := stepsJSON(d.Steps)
	if steps == nil {
		steps = []any{}
	}
	m[keyChildSteps] = steps
	return m
}

func (s *Step) toJSONValue() map[string]any {
	m := make(map[string]any, len(s.Config)+8)
	for k, v := range s.Config {
		m[k] = v
	}
	m["id"] = s.ID
	if s.Name != "" {
		m["name"] = s.Name
	}
	m["step_type"] = string(s.Type)
	putSteps(m, keyChildSteps, s.Children)
	putSteps(m, keyThenSteps, s.Then)
	putSteps(m, keyElseSteps, s.Else)
	putSteps(m, keyBody, s.Body)
	if s.Cases != nil {
		cases := make([]any, len(s.Cases))
		for i, c := range s.Cases {
			if c == nil {
				continue
			}
			cm := make(map[string]any, len(c.Extra)+2)
			for k, v := range c.Extra {
				cm[k] = v
			}
			cm[keyCaseMatch] = c.Match
			steps := stepsJSON(c.Steps)
			if steps == nil {
				steps = []any{}
			}
			cm[keyCaseSteps] = steps
			cases[i] = cm
		}
		m[keyCases] = cases
	}
	return m
}

func putSteps(m map[string]any, key string, steps []*Step) {
	if steps != nil {
		m[key] = stepsJSON(steps)
	}
}

func stepsJSON(steps []*Step) []any {
	if steps == nil {
		return nil
	}
	out := make([]any, len(steps))
	for i, s := range steps {
		if s != nil { // placeholders of invalid elements, see decodeSteps
			out[i] = s.toJSONValue()
		}
	}
	return out
}

// Clone returns a deep copy, so a caller can remap or edit without touching
// the original.
func (d *Definition) Clone() *Definition {
	if d == nil {
		return nil
	}
	c := *d
	if d.Tags != nil {
		c.Tags = append([]string{}, d.Tags...)
	}
	c.Extra = cloneMap(d.Extra)
	c.Steps = cloneSteps(d.Steps)
	return &c
}

// Clone returns a deep copy of the step and its sub-trees.
func (s *Step) Clone() *Step {
	if s == nil {
		return nil
	}
	c := *s
	c.Config = cloneMap(s.Config)
	c.Children = cloneSteps(s.Children)
	c.Then = cloneSteps(s.Then)
	c.Else = cloneSteps(s.Else)
	c.Body = cloneSteps(s.Body)
	if s.Cases != nil {
		c.Cases = make([]*Case, len(s.Cases))
		for i, k := range s.Cases {
			if k == nil {
				continue
			}
			c.Cases[i] = &Case{Match: cloneValue(k.Match), Steps: cloneSteps(k.Steps), Extra: cloneMap(k.Extra)}
		}
	}
	return &c
}

func cloneSteps(steps []*Step) []*Step {
	if steps == nil {
		return nil
	}
	out := make([]*Step, len(steps))
	for i, s := range steps {
		out[i] = s.Clone()
	}
	return out
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return cloneMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	case []string:
		return append([]string{}, t...)
	case []map[string]any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneMap(e)
		}
		return out
	default:
		return v
	}
}

// String returns the string config field key, if present and a string.
func (s *Step) String(key string) (string, bool) {
	v, ok := s.Config[key].(string)
	return v, ok
}

// Number returns a numeric config field as float64, whatever Go type holds
// it (json.Number after parsing, int or float64 when built in code).
func (s *Step) Number(key string) (float64, bool) {
	return toFloat(s.Config[key])
}

// Int returns an integral numeric config field.
func (s *Step) Int(key string) (int, bool) {
	f, ok := toFloat(s.Config[key])
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

// Bool returns a boolean config field.
func (s *Step) Bool(key string) (bool, bool) {
	v, ok := s.Config[key].(bool)
	return v, ok
}

// DecodeConfig fills v (a pointer to a struct with json tags) from the
// step's configuration, for engine code that prefers typed access.
func (s *Step) DecodeConfig(v any) error {
	b, err := json.Marshal(s.Config)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func toFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		return f, err == nil && !math.IsInf(f, 0)
	case float64:
		return t, true
	case float32:
		return float64(t), true
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case int32:
		return float64(t), true
	}
	return 0, false
}

func isNumber(v any) bool {
	_, ok := toFloat(v)
	return ok
}
