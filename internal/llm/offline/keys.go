package offline

import (
	"encoding/json"
	"regexp"
	"strings"
)

// In JSON mode without a schema, the instructions usually say what the
// object holds: "valid against this schema: {…}", or "a JSON object with
// the keys "title", "people" (list of names) and "summary" (one
// sentence)". schemaFromInstructions turns either into a JSON schema, so
// the object is filled field by field like a schema request.

var (
	reQuotedKey = regexp.MustCompile("[\"`“']([A-Za-z_][A-Za-z0-9_\\-]{0,40})[\"`”']\\s*(\\(([^()]{0,120})\\))?")
	reKeysCue   = regexp.MustCompile(`(?i)\b(keys?|fields?|properties|attributes|members)\b`)
	reEnumSep   = regexp.MustCompile(`\s*(?:,|\bor\b|/|\|)\s*`)
	reEnumList  = regexp.MustCompile(`^\s*([\w\-]+)(\s*(,|or|/|\|)\s*[\w\-]+)+\s*$`)
)

// pluralKinds are key names that hold lists even when the instructions
// do not say "list".
var pluralKinds = map[string]bool{"people": true, "persons": true, "names": true, "organizations": true,
	"organisations": true, "companies": true, "dates": true, "keywords": true, "tags": true, "topics": true,
	"emails": true, "urls": true, "links": true, "phones": true, "amounts": true, "numbers": true,
	"entities": true, "locations": true, "places": true, "products": true, "items": true, "points": true,
	"highlights": true, "action_items": true, "participants": true, "attendees": true, "authors": true}

// schemaFromInstructions returns a schema for JSON mode, or nil when the
// instructions describe none.
func schemaFromInstructions(steer string) json.RawMessage {
	if s := embeddedSchema(steer); s != nil {
		return s
	}
	if !reKeysCue.MatchString(steer) {
		return nil
	}
	props := map[string]any{}
	var order []string
	for _, m := range reQuotedKey.FindAllStringSubmatch(steer, 40) {
		name, desc := m[1], strings.TrimSpace(m[3])
		if _, dup := props[name]; dup {
			continue
		}
		order = append(order, name)
		ld := strings.ToLower(desc)
		switch {
		case strings.Contains(ld, "list") || strings.Contains(ld, "array") || pluralKinds[strings.ToLower(name)]:
			props[name] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
		case reEnumList.MatchString(desc):
			var vals []any
			for _, v := range reEnumSep.Split(strings.TrimSpace(desc), -1) {
				if v = strings.TrimSpace(v); v != "" {
					vals = append(vals, v)
				}
			}
			props[name] = map[string]any{"type": "string", "enum": vals}
		case strings.Contains(ld, "number") || strings.Contains(ld, "integer") || strings.Contains(ld, "count"):
			props[name] = map[string]any{"type": []any{"number", "null"}, "description": desc}
		case strings.Contains(ld, "true") || strings.Contains(ld, "boolean") || strings.Contains(ld, "yes/no"):
			props[name] = map[string]any{"type": "boolean", "description": desc}
		default:
			props[name] = map[string]any{"type": []any{"string", "null"}, "description": desc}
		}
	}
	if len(order) == 0 {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": order})
	return b
}

// embeddedSchema finds a JSON schema written into the instructions.
func embeddedSchema(s string) json.RawMessage {
	for i := strings.IndexByte(s, '{'); i >= 0; {
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v map[string]any
		if dec.Decode(&v) == nil {
			if _, ok := v["properties"]; ok || v["type"] == "object" {
				b, _ := json.Marshal(v)
				return b
			}
		}
		j := strings.IndexByte(s[i+1:], '{')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return nil
}
