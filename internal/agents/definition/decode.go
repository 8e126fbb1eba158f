package definition

import (
	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// Decoding turns the generic JSON tree into the typed model while recording
// every shape problem with its path, instead of stopping at the first one as
// encoding/json would: an import error lists all of them at once.

// ParseDefinition reads a bare definition from JSON. Syntax errors are
// returned as *canonjson.SyntaxError; shape problems (wrong types, missing
// ids) come back as Problems next to a best-effort definition.
func ParseDefinition(b []byte) (*Definition, Problems, error) {
	v, dups, err := canonjson.Parse(b)
	if err != nil {
		return nil, nil, err
	}
	var probs Problems
	for _, p := range dups {
		probs.warnf(CodeDuplicateKey, p, "key appears more than once; the last value is used")
	}
	d := decodeDefinition(v, "", &probs)
	return d, probs, nil
}

var definitionKeys = map[string]bool{"name": true, "description": true, "tags": true, keyChildSteps: true}

func decodeDefinition(v any, path string, probs *Problems) *Definition {
	d := &Definition{}
	m, ok := v.(map[string]any)
	if !ok {
		probs.errorf(CodeInvalidType, path, "the definition must be a JSON object")
		return d
	}
	d.Name = optString(m, "name", path, probs)
	d.Description = optString(m, "description", path, probs)
	if tv, ok := m["tags"]; ok && tv != nil {
		list, ok := tv.([]any)
		if !ok {
			probs.errorf(CodeInvalidType, fieldPath(path, "tags"), "tags must be a list of strings")
		} else {
			d.Tags = make([]string, 0, len(list))
			for i, t := range list {
				s, ok := t.(string)
				if !ok {
					probs.errorf(CodeInvalidType, indexPath(fieldPath(path, "tags"), i), "tags must be strings")
					continue
				}
				d.Tags = append(d.Tags, s)
			}
		}
	}
	stepsKey := keyChildSteps
	if _, ok := m[keyChildSteps]; !ok {
		if _, legacy := m["steps"]; legacy {
			stepsKey = "steps"
			probs.warnf(CodeLegacyKey, fieldPath(path, "steps"), "\"steps\" is read as child_steps; it is written back as child_steps")
		}
	}
	d.stepsKey = stepsKey
	switch sv, ok := m[stepsKey]; {
	case !ok:
		probs.errorf(CodeMissingField, fieldPath(path, keyChildSteps), "the definition needs child_steps (a list of steps)")
	case sv == nil:
		probs.errorf(CodeInvalidType, fieldPath(path, stepsKey), "child_steps must be a list of steps")
	default:
		d.Steps = decodeSteps(sv, fieldPath(path, stepsKey), probs)
		if d.Steps == nil {
			d.Steps = []*Step{}
		}
	}
	for k, val := range m {
		if definitionKeys[k] || k == stepsKey {
			continue
		}
		if d.Extra == nil {
			d.Extra = map[string]any{}
		}
		d.Extra[k] = val
		probs.warnf(CodeUnknownField, fieldPath(path, k), "unknown definition field %q is kept but not used", k)
	}
	return d
}

func optString(m map[string]any, key, path string, probs *Problems) string {
	v, ok := m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		probs.errorf(CodeInvalidType, fieldPath(path, key), "%s must be a string", key)
	}
	return s
}

// decodeSteps keeps a nil entry for every element that is not an object so
// that indexes, and therefore paths, stay those of the payload.
func decodeSteps(v any, path string, probs *Problems) []*Step {
	list, ok := v.([]any)
	if !ok {
		probs.errorf(CodeInvalidType, path, "must be a list of steps")
		return nil
	}
	out := make([]*Step, len(list))
	for i, e := range list {
		out[i] = decodeStep(e, indexPath(path, i), probs)
	}
	return out
}

var structuralKeys = map[string]bool{
	"id": true, "name": true, "step_type": true,
	keyChildSteps: true, keyThenSteps: true, keyElseSteps: true, keyCases: true, keyBody: true,
}

func decodeStep(v any, path string, probs *Problems) *Step {
	m, ok := v.(map[string]any)
	if !ok {
		probs.errorf(CodeInvalidType, path, "a step must be a JSON object")
		return nil
	}
	s := &Step{}
	if id, ok := m["id"]; ok && id != nil {
		if str, isStr := id.(string); isStr {
			s.ID = str
		} else {
			s.badID = true
			probs.errorf(CodeInvalidType, fieldPath(path, "id"), "id must be a string")
		}
	}
	s.Name = optString(m, "name", path, probs)
	if t, ok := m["step_type"]; ok && t != nil {
		if str, isStr := t.(string); isStr {
			s.Type = StepType(str)
		} else {
			s.badType = true
			probs.errorf(CodeInvalidType, fieldPath(path, "step_type"), "step_type must be a string")
		}
	}
	sub := func(key string) []*Step {
		v, ok := m[key]
		if !ok || v == nil {
			return nil
		}
		steps := decodeSteps(v, fieldPath(path, key), probs)
		if steps == nil {
			steps = []*Step{}
		}
		return steps
	}
	s.Children = sub(keyChildSteps)
	s.Then = sub(keyThenSteps)
	s.Else = sub(keyElseSteps)
	// "body" is the step list of for_each but the message body of
	// send_email and webhook_call: it is a sub-tree on for_each, or when it
	// holds a list, and configuration otherwise.
	_, bodyIsList := m[keyBody].([]any)
	bodyIsTree := s.Type == StepForEach || bodyIsList
	if bodyIsTree {
		s.Body = sub(keyBody)
	}
	if cv, ok := m[keyCases]; ok && cv != nil {
		s.Cases = decodeCases(cv, fieldPath(path, keyCases), probs)
	}
	for k, val := range m {
		if structuralKeys[k] && (k != keyBody || bodyIsTree) {
			continue
		}
		if s.Config == nil {
			s.Config = map[string]any{}
		}
		s.Config[k] = val
	}
	return s
}

func decodeCases(v any, path string, probs *Problems) []*Case {
	list, ok := v.([]any)
	if !ok {
		probs.errorf(CodeInvalidType, path, "cases must be a list of {match, steps} objects")
		return []*Case{}
	}
	out := make([]*Case, len(list))
	for i, e := range list {
		cp := indexPath(path, i)
		m, ok := e.(map[string]any)
		if !ok {
			probs.errorf(CodeInvalidType, cp, "a case must be an object with match and steps")
			continue
		}
		c := &Case{Match: m[keyCaseMatch]}
		switch sv, ok := m[keyCaseSteps]; {
		case !ok || sv == nil:
			probs.errorf(CodeMissingField, fieldPath(cp, keyCaseSteps), "a case needs steps")
			c.Steps = []*Step{}
		default:
			c.Steps = decodeSteps(sv, fieldPath(cp, keyCaseSteps), probs)
			if c.Steps == nil {
				c.Steps = []*Step{}
			}
		}
		for k, val := range m {
			if k == keyCaseMatch || k == keyCaseSteps {
				continue
			}
			if c.Extra == nil {
				c.Extra = map[string]any{}
			}
			c.Extra[k] = val
		}
		out[i] = c
	}
	return out
}
