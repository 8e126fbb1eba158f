// Package metafilter parses and applies the metadata filters of knowledge
// search: a JSON object whose keys name metadata fields. A plain value
// matches by containment (equal scalars; for a list, every filter element
// present); an object of operators compares ($eq, $ne, $in, $nin, $gt,
// $gte, $lt, $lte, $exists); "$and" and "$or" combine filters. Filters
// come from tenants, so their size and depth are bounded.
package metafilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Bounds on a filter.
const (
	MaxNodes = 256
	MaxDepth = 8
	MaxKey   = 128
)

// ErrInvalid is wrapped by every parse failure.
var ErrInvalid = errors.New("invalid metadata filter")

// Filter is a parsed filter; the zero Filter (or nil) matches everything.
type Filter struct {
	conds []cond
}

type cond struct {
	key string // "" for $and / $or
	op  string // eq (containment), ne, in, nin, gt, gte, lt, lte, exists, and, or
	val any
	sub []*Filter
}

var ops = map[string]bool{"$eq": true, "$ne": true, "$in": true, "$nin": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true, "$exists": true}

// ParseJSON parses a filter from JSON text (empty or null matches all).
func ParseJSON(b []byte) (*Filter, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: a filter is a JSON object", ErrInvalid)
	}
	return Parse(m)
}

// Parse parses a decoded JSON object.
func Parse(m map[string]any) (*Filter, error) {
	if len(m) == 0 {
		return nil, nil
	}
	nodes := 0
	return parse(m, 0, &nodes)
}

func parse(m map[string]any, depth int, nodes *int) (*Filter, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrInvalid, MaxDepth)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	f := &Filter{}
	for _, k := range keys {
		*nodes++
		if *nodes > MaxNodes {
			return nil, fmt.Errorf("%w: more than %d conditions", ErrInvalid, MaxNodes)
		}
		if len(k) > MaxKey || k == "" {
			return nil, fmt.Errorf("%w: keys are 1 to %d characters", ErrInvalid, MaxKey)
		}
		v := m[k]
		if k == "$and" || k == "$or" {
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("%w: %s takes a non-empty list of filters", ErrInvalid, k)
			}
			c := cond{op: k[1:]}
			for _, item := range list {
				sm, ok := item.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%w: %s takes a list of objects", ErrInvalid, k)
				}
				sub, err := parse(sm, depth+1, nodes)
				if err != nil {
					return nil, err
				}
				if sub == nil {
					sub = &Filter{}
				}
				c.sub = append(c.sub, sub)
			}
			f.conds = append(f.conds, c)
			continue
		}
		if strings.HasPrefix(k, "$") {
			return nil, fmt.Errorf("%w: unknown operator %s at the top level", ErrInvalid, k)
		}
		if om, ok := v.(map[string]any); ok && isOperatorObject(om) {
			opKeys := make([]string, 0, len(om))
			for op := range om {
				opKeys = append(opKeys, op)
			}
			sort.Strings(opKeys)
			for _, op := range opKeys {
				if !ops[op] {
					return nil, fmt.Errorf("%w: unknown operator %s", ErrInvalid, op)
				}
				arg := om[op]
				switch op {
				case "$in", "$nin":
					if _, ok := arg.([]any); !ok {
						return nil, fmt.Errorf("%w: %s takes a list", ErrInvalid, op)
					}
				case "$exists":
					if _, ok := arg.(bool); !ok {
						return nil, fmt.Errorf("%w: $exists takes true or false", ErrInvalid)
					}
				case "$gt", "$gte", "$lt", "$lte":
					switch arg.(type) {
					case float64, string:
					default:
						return nil, fmt.Errorf("%w: %s takes a number or a string", ErrInvalid, op)
					}
				}
				f.conds = append(f.conds, cond{key: k, op: op[1:], val: arg})
			}
			continue
		}
		f.conds = append(f.conds, cond{key: k, op: "contains", val: v})
	}
	return f, nil
}

func isOperatorObject(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			return false
		}
	}
	return true
}

// Match reports whether metadata satisfies the filter.
func (f *Filter) Match(meta map[string]any) bool {
	if f == nil {
		return true
	}
	for _, c := range f.conds {
		if !c.match(meta) {
			return false
		}
	}
	return true
}

func (c cond) match(meta map[string]any) bool {
	switch c.op {
	case "and":
		for _, s := range c.sub {
			if !s.Match(meta) {
				return false
			}
		}
		return true
	case "or":
		for _, s := range c.sub {
			if s.Match(meta) {
				return true
			}
		}
		return false
	}
	v, present := meta[c.key]
	switch c.op {
	case "exists":
		return present == c.val.(bool)
	case "contains", "eq":
		return present && contains(v, c.val)
	case "ne":
		return !present || !contains(v, c.val)
	case "in":
		for _, x := range c.val.([]any) {
			if present && contains(v, x) {
				return true
			}
		}
		return false
	case "nin":
		for _, x := range c.val.([]any) {
			if present && contains(v, x) {
				return false
			}
		}
		return true
	case "gt", "gte", "lt", "lte":
		if !present {
			return false
		}
		cmp, ok := compare(v, c.val)
		if !ok {
			return false
		}
		switch c.op {
		case "gt":
			return cmp > 0
		case "gte":
			return cmp >= 0
		case "lt":
			return cmp < 0
		default:
			return cmp <= 0
		}
	}
	return false
}

// contains is JSON containment: a list holds every element of a wanted
// list (or a wanted scalar), an object every wanted key, a scalar equals.
func contains(have, want any) bool {
	switch w := want.(type) {
	case []any:
		h, ok := have.([]any)
		if !ok {
			return false
		}
		for _, x := range w {
			found := false
			for _, y := range h {
				if contains(y, x) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range w {
			y, ok := h[k]
			if !ok || !contains(y, x) {
				return false
			}
		}
		return true
	}
	if h, ok := have.([]any); ok {
		for _, y := range h {
			if scalarEqual(y, want) {
				return true
			}
		}
		return false
	}
	return scalarEqual(have, want)
}

func scalarEqual(a, b any) bool {
	// Metadata stored from form fields is text: "3" equals 3.
	if as, ok := a.(string); ok {
		if bf, ok := b.(float64); ok {
			return as == fmt.Sprint(bf)
		}
	}
	return reflect.DeepEqual(a, b)
}

func compare(a, b any) (int, bool) {
	switch bv := b.(type) {
	case float64:
		av, ok := a.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case av < bv:
			return -1, true
		case av > bv:
			return 1, true
		}
		return 0, true
	case string:
		av, ok := a.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(av, bv), true
	}
	return 0, false
}
