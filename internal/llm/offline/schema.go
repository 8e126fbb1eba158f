package offline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// This file reads the JSON Schema subset the offline model honours. A
// schema is kept as decoded JSON (map[string]any or a boolean) rather than
// a struct, because real-world schemas carry keywords from several drafts
// and we only look at those we act on: type, enum, const, default,
// examples, properties, required, additionalProperties, items, prefixItems,
// minItems, maxItems, uniqueItems, minProperties, maxProperties,
// minLength, maxLength, pattern, format, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum (number or draft-4 boolean),
// multipleOf, anyOf, oneOf, allOf, not and local $ref (#, #/$defs/…,
// #/definitions/…). Other keywords are ignored by both the generator and
// the validator.

// ErrSchema reports a schema the offline model cannot read or satisfy.
var ErrSchema = errors.New("offline model: unsupported or unsatisfiable JSON schema")

// maxSchemaBytes bounds the schemas we accept; the offline model is also
// reached by untrusted agent definitions.
const maxSchemaBytes = 1 << 20

// maxDepth bounds recursion through nested and self-referencing schemas.
const maxDepth = 24

// parseSchema decodes raw JSON into a schema root. Numbers are kept as
// json.Number so integers and bounds survive exactly.
func parseSchema(raw []byte) (any, error) {
	if len(raw) > maxSchemaBytes {
		return nil, fmt.Errorf("%w: schema larger than %d bytes", ErrSchema, maxSchemaBytes)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after schema", ErrSchema)
	}
	switch v.(type) {
	case map[string]any, bool:
		return v, nil
	}
	return nil, fmt.Errorf("%w: a schema must be an object or a boolean", ErrSchema)
}

// node is one schema position with access to the root for $ref, and to
// the work budget shared by everything done for one request.
type node struct {
	root   any
	s      any // map[string]any or bool
	budget *int
}

// spend takes one step from the budget; false when it is exhausted.
func (n node) spend() bool {
	if n.budget == nil {
		return true
	}
	*n.budget--
	return *n.budget >= 0
}

func (n node) obj() map[string]any {
	m, _ := n.s.(map[string]any)
	return m
}

func (n node) child(v any) node { return node{root: n.root, s: v, budget: n.budget} }

func (n node) get(k string) (any, bool) {
	m := n.obj()
	if m == nil {
		return nil, false
	}
	v, ok := m[k]
	return v, ok
}

// resolve follows $ref chains (local references only).
func (n node) resolve() (node, error) {
	for hops := 0; hops < maxDepth; hops++ {
		ref, ok := n.get("$ref")
		if !ok {
			return n, nil
		}
		s, _ := ref.(string)
		target, err := lookupPointer(n.root, s)
		if err != nil {
			return n, err
		}
		// Sibling keywords next to $ref (allowed since 2019-09) are
		// merged under the referenced schema's keywords.
		if m := n.obj(); len(m) > 1 {
			merged := map[string]any{}
			if tm, ok := target.(map[string]any); ok {
				for k, v := range tm {
					merged[k] = v
				}
			} else if b, ok := target.(bool); ok && !b {
				return n.child(false), nil
			}
			for k, v := range m {
				if k != "$ref" {
					merged[k] = v
				}
			}
			target = merged
		}
		n = n.child(target)
	}
	return n, fmt.Errorf("%w: $ref chain too long", ErrSchema)
}

func lookupPointer(root any, ref string) (any, error) {
	if ref == "#" || ref == "" {
		return root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("%w: only local $ref is supported, got %q", ErrSchema, ref)
	}
	cur := root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("%w: $ref %q not found", ErrSchema, ref)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("%w: $ref %q not found", ErrSchema, ref)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%w: $ref %q not found", ErrSchema, ref)
		}
	}
	switch cur.(type) {
	case map[string]any, bool:
		return cur, nil
	}
	return nil, fmt.Errorf("%w: $ref %q is not a schema", ErrSchema, ref)
}

// types returns the allowed JSON types; nil means any.
func (n node) types() []string {
	v, ok := n.get("type")
	if !ok {
		return nil
	}
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (n node) num(k string) (float64, bool) {
	v, ok := n.get(k)
	if !ok {
		return 0, false
	}
	return toFloat(v)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return x, !math.IsInf(x, 0) && !math.IsNaN(x)
	case int:
		return float64(x), true
	}
	return 0, false
}

func (n node) intKw(k string) (int, bool) {
	f, ok := n.num(k)
	if !ok || f < 0 {
		return 0, false
	}
	if f > 1e6 {
		f = 1e6
	}
	return int(f), true
}

func (n node) list(k string) []any {
	v, _ := n.get(k)
	l, _ := v.([]any)
	return l
}

func (n node) str(k string) string {
	v, _ := n.get(k)
	s, _ := v.(string)
	return s
}

// regexCache holds compiled patterns; Go's RE2 syntax covers the usual
// JSON-schema patterns, and RE2 runs in linear time, so hostile patterns
// cannot stall us. Patterns that do not compile are ignored. The cache is
// bounded because schemas come from users.
var regexCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const maxCachedPatterns = 512

func compilePattern(p string) *regexp.Regexp {
	regexCache.Lock()
	defer regexCache.Unlock()
	if re, ok := regexCache.m[p]; ok {
		return re
	}
	var re *regexp.Regexp
	if len(p) <= 1000 {
		re, _ = regexp.Compile(p)
	}
	if regexCache.m == nil || len(regexCache.m) >= maxCachedPatterns {
		regexCache.m = map[string]*regexp.Regexp{}
	}
	regexCache.m[p] = re
	return re
}
