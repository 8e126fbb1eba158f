package offline

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// validateJSON checks a JSON document against a schema (both raw JSON).
// It is the offline model's self-check before it answers, and what tests
// use to prove its output valid.
func validateJSON(schema, doc []byte) error {
	root, err := parseSchema(schema)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(doc)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	budget := validateBudget
	return validate(node{root: root, s: root, budget: &budget}, v, "$", 0)
}

// validateBudget bounds the work of one validation: anyOf/oneOf branches
// that refer back to the root can otherwise make validation exponential.
const validateBudget = 200_000

// errBudget ends work on schemas too complex to process.
var errBudget = fmt.Errorf("%w: schema too complex", ErrSchema)

// validate reports the first way v violates n, with a JSON-path-ish location.
func validate(n node, v any, at string, depth int) error {
	if depth > maxDepth*2 {
		return fmt.Errorf("%s: schema nesting too deep", at)
	}
	if !n.spend() {
		return errBudget
	}
	if b, ok := n.s.(bool); ok {
		if !b {
			return fmt.Errorf("%s: false schema admits nothing", at)
		}
		return nil
	}
	n, err := n.resolve()
	if err != nil {
		return err
	}
	if _, ok := n.s.(bool); ok {
		return validate(n, v, at, depth+1)
	}
	if ts := n.types(); ts != nil {
		ok := false
		for _, t := range ts {
			if hasType(v, t) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%s: want type %v, got %s", at, ts, typeName(v))
		}
	}
	if c, ok := n.get("const"); ok && !jsonEqual(c, v) {
		return fmt.Errorf("%s: must equal const", at)
	}
	if e, ok := n.get("enum"); ok {
		list, _ := e.([]any)
		found := false
		for _, x := range list {
			if jsonEqual(x, v) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: not one of the enum values", at)
		}
	}
	switch x := v.(type) {
	case string:
		if err := validateString(n, x, at); err != nil {
			return err
		}
	case json.Number, float64, int:
		f, _ := toFloat(x)
		if err := validateNumber(n, f, at); err != nil {
			return err
		}
	case []any:
		if err := validateArray(n, x, at, depth); err != nil {
			return err
		}
	case map[string]any:
		if err := validateObject(n, x, at, depth); err != nil {
			return err
		}
	}
	for _, sub := range n.list("allOf") {
		if err := validate(n.child(sub), v, at, depth+1); err != nil {
			return err
		}
	}
	if l := n.list("anyOf"); l != nil {
		ok := false
		for _, sub := range l {
			if validate(n.child(sub), v, at, depth+1) == nil {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%s: matches no anyOf branch", at)
		}
	}
	if l := n.list("oneOf"); l != nil {
		matches := 0
		for _, sub := range l {
			if validate(n.child(sub), v, at, depth+1) == nil {
				matches++
			}
		}
		if matches != 1 {
			return fmt.Errorf("%s: matches %d oneOf branches, want exactly 1", at, matches)
		}
	}
	if not, ok := n.get("not"); ok {
		if validate(n.child(not), v, at, depth+1) == nil {
			return fmt.Errorf("%s: matches a 'not' schema", at)
		}
	}
	return nil
}

func validateString(n node, s, at string) error {
	l := utf8.RuneCountInString(s)
	if m, ok := n.intKw("minLength"); ok && l < m {
		return fmt.Errorf("%s: shorter than minLength %d", at, m)
	}
	if m, ok := n.intKw("maxLength"); ok && l > m {
		return fmt.Errorf("%s: longer than maxLength %d", at, m)
	}
	if p := n.str("pattern"); p != "" {
		if re := compilePattern(p); re != nil && !re.MatchString(s) {
			return fmt.Errorf("%s: does not match pattern %q", at, p)
		}
	}
	if f := n.str("format"); f != "" && !validFormat(f, s) {
		return fmt.Errorf("%s: not a valid %s", at, f)
	}
	return nil
}

// validFormat checks the formats the generator produces; unknown formats
// are annotations only, as the specification allows.
func validFormat(format, s string) bool {
	switch format {
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	case "time":
		_, err := time.Parse("15:04:05Z07:00", s)
		if err != nil {
			_, err = time.Parse("15:04:05", s)
		}
		return err == nil
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s
	case "uri", "url":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && u.Host != ""
	case "uuid":
		if len(s) != 36 {
			return false
		}
		for i, c := range s {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if c != '-' {
					return false
				}
			} else if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
		return true
	}
	return true
}

func validateNumber(n node, f float64, at string) error {
	if min, ok := n.num("minimum"); ok {
		if excl, _ := n.get("exclusiveMinimum"); excl == true && f <= min {
			return fmt.Errorf("%s: must be > %v", at, min)
		}
		if f < min {
			return fmt.Errorf("%s: below minimum %v", at, min)
		}
	}
	if max, ok := n.num("maximum"); ok {
		if excl, _ := n.get("exclusiveMaximum"); excl == true && f >= max {
			return fmt.Errorf("%s: must be < %v", at, max)
		}
		if f > max {
			return fmt.Errorf("%s: above maximum %v", at, max)
		}
	}
	if em, ok := n.num("exclusiveMinimum"); ok && f <= em {
		return fmt.Errorf("%s: must be > %v", at, em)
	}
	if em, ok := n.num("exclusiveMaximum"); ok && f >= em {
		return fmt.Errorf("%s: must be < %v", at, em)
	}
	if m, ok := n.num("multipleOf"); ok && m > 0 {
		q := f / m
		if math.IsInf(q, 0) || math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
			return fmt.Errorf("%s: not a multiple of %v", at, m)
		}
	}
	return nil
}

func validateArray(n node, a []any, at string, depth int) error {
	if m, ok := n.intKw("minItems"); ok && len(a) < m {
		return fmt.Errorf("%s: fewer than minItems %d", at, m)
	}
	if m, ok := n.intKw("maxItems"); ok && len(a) > m {
		return fmt.Errorf("%s: more than maxItems %d", at, m)
	}
	if u, _ := n.get("uniqueItems"); u == true {
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if jsonEqual(a[i], a[j]) {
					return fmt.Errorf("%s: items %d and %d are equal", at, i, j)
				}
			}
		}
	}
	prefix := n.list("prefixItems")
	items, hasItems := n.get("items")
	if tuple, ok := items.([]any); ok { // draft-4..2019 tuple form
		prefix = tuple
		items, hasItems = n.get("additionalItems")
	}
	for i, x := range a {
		loc := fmt.Sprintf("%s[%d]", at, i)
		switch {
		case i < len(prefix):
			if err := validate(n.child(prefix[i]), x, loc, depth+1); err != nil {
				return err
			}
		case hasItems:
			if err := validate(n.child(items), x, loc, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateObject(n node, o map[string]any, at string, depth int) error {
	if m, ok := n.intKw("minProperties"); ok && len(o) < m {
		return fmt.Errorf("%s: fewer than minProperties %d", at, m)
	}
	if m, ok := n.intKw("maxProperties"); ok && len(o) > m {
		return fmt.Errorf("%s: more than maxProperties %d", at, m)
	}
	for _, r := range n.list("required") {
		k, _ := r.(string)
		if _, ok := o[k]; !ok {
			return fmt.Errorf("%s: missing required property %q", at, k)
		}
	}
	props, _ := n.get("properties")
	pm, _ := props.(map[string]any)
	addl, hasAddl := n.get("additionalProperties")
	for k, v := range o {
		loc := at + "." + k
		if ps, ok := pm[k]; ok {
			if err := validate(n.child(ps), v, loc, depth+1); err != nil {
				return err
			}
			continue
		}
		if hasAddl {
			if err := validate(n.child(addl), v, loc, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := toFloat(v)
		return ok && isNumber(v)
	case "integer":
		f, ok := toFloat(v)
		return ok && isNumber(v) && f == math.Trunc(f)
	}
	return false
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int:
		return true
	}
	return false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	if isNumber(v) {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	fa, oka := toFloat(a)
	fb, okb := toFloat(b)
	if oka && okb && isNumber(a) && isNumber(b) {
		return fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
