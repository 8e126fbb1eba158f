package conformance

import (
	"fmt"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// UndeclaredExcept lists the object fields of value (a decoded JSON document)
// that schema does not declare, as JSON paths ("$.organizations[0].extra").
//
// JSON Schema lets objects carry any extra field unless additionalProperties
// says otherwise, and the reference almost never says so; but clients of the
// contract read exactly its fields, and a stray one usually means a typo'd
// or leaked field. So a response is held to the declared properties: an
// object schema that lists properties and says nothing about
// additionalProperties is treated as closed. Schemas with no properties, or
// with additionalProperties given, stay open (maps, free-form JSON).
//
// The fields named in extensions are let through: the response fields our
// own document marks as extensions (ExtensionFields), which the reference
// cannot know.
func UndeclaredExcept(schema *openapi3.Schema, value any, extensions map[string]bool) []string {
	var out []string
	undeclared(schema, value, "$", extensions, &out)
	sort.Strings(out)
	return out
}

func undeclared(s *openapi3.Schema, v any, at string, ext map[string]bool, out *[]string) {
	if s == nil {
		return
	}
	if alts := append(append(openapi3.SchemaRefs{}, s.AnyOf...), s.OneOf...); len(alts) > 0 {
		// The value is fine if any alternative it validates against
		// declares all its fields; otherwise report against the first
		// alternative it matched, which is the likeliest intended one.
		var first []string
		matched := false
		for _, alt := range alts {
			if alt == nil || alt.Value == nil || alt.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()) != nil {
				continue
			}
			var found []string
			undeclared(alt.Value, v, at, ext, &found)
			if len(found) == 0 {
				first, matched = nil, true
				break
			}
			if !matched {
				first, matched = found, true
			}
		}
		*out = append(*out, first...)
		if len(s.Properties) == 0 && s.Items == nil {
			return
		}
	}
	if len(s.AllOf) > 0 {
		// The reference uses no allOf; a field declared by any branch would
		// count as declared, so rather than guess, such a level stays open.
		return
	}
	switch val := v.(type) {
	case map[string]any:
		extra := s.AdditionalProperties
		closed := len(s.Properties) > 0 || (extra.Has != nil && !*extra.Has)
		if extra.Has != nil && *extra.Has {
			closed = false
		}
		for k, field := range val {
			path := at + "." + k
			if p, ok := s.Properties[k]; ok && p != nil {
				undeclared(p.Value, field, path, ext, out)
				continue
			}
			switch {
			case extra.Schema != nil && extra.Schema.Value != nil:
				undeclared(extra.Schema.Value, field, path, ext, out)
			case ext[k]:
				// One of our documented extension fields.
			case closed:
				*out = append(*out, path)
			}
		}
	case []any:
		if s.Items != nil && s.Items.Value != nil {
			for i, item := range val {
				undeclared(s.Items.Value, item, fmt.Sprintf("%s[%d]", at, i), ext, out)
			}
		}
	}
}
