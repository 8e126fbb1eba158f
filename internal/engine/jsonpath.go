package engine

import (
	"slices"
	"strconv"
	"strings"
)

// jsonPath evaluates the JSONPath subset definitions use: $ root, .key,
// ['key'], [n], [*] and .* wildcards. It returns the matches in document
// order; ok is false when the path is malformed.
func jsonPath(doc any, p string) ([]any, bool) {
	p = strings.TrimSpace(p)
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	cur := []any{doc}
	rest := p[1:]
	for rest != "" {
		var next []any
		switch {
		case strings.HasPrefix(rest, ".."):
			return nil, false // recursive descent is not supported
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key := rest[:end]
			rest = rest[end:]
			if key == "" {
				return nil, false
			}
			for _, c := range cur {
				next = append(next, child(c, key)...)
			}
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return nil, false
			}
			sel := strings.TrimSpace(rest[1:end])
			rest = rest[end+1:]
			if len(sel) >= 2 && (sel[0] == '\'' || sel[0] == '"') && sel[len(sel)-1] == sel[0] {
				for _, c := range cur {
					next = append(next, child(c, sel[1:len(sel)-1])...)
				}
				break
			}
			for _, c := range cur {
				next = append(next, child(c, sel)...)
			}
		default:
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// child selects key (a name, an index, or *) from a value.
func child(v any, key string) []any {
	switch t := v.(type) {
	case map[string]any:
		if key == "*" {
			out := make([]any, 0, len(t))
			for _, k := range sortedMapKeys(t) {
				out = append(out, t[k])
			}
			return out
		}
		if c, ok := t[key]; ok {
			return []any{c}
		}
	case []any:
		if key == "*" {
			return t
		}
		if n, err := strconv.Atoi(key); err == nil {
			if n < 0 {
				n += len(t)
			}
			if n >= 0 && n < len(t) {
				return []any{t[n]}
			}
		}
	}
	return nil
}

// sortedMapKeys orders an object's keys, since a decoded object keeps no
// document order: wildcard results are then the same on every run. The
// sort is O(n log n); an object may hold as many keys as its run's input.
func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
