package evals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// An evaluation criterion's expectation_config holds deterministic checks of
// a step's output, each a requirement:
//
//	{"json_schema": {...},                  // output is JSON valid against the schema
//	 "is_json": true,                        // output is JSON
//	 "regex": "^\\{" | [...],                // output matches every pattern
//	 "not_regex": "..." | [...],             // and none of these
//	 "contains": "total" | [...],            // output contains every string
//	 "not_contains": "..." | [...],          // and none of these
//	 "case_sensitive": false,                // for contains / not_contains
//	 "equals": "...",                        // output equals this (trimmed)
//	 "numeric_range": {"min": 0, "max": 100, "path": "$.total"},
//	 "min_length": 1, "max_length": 2000,    // characters
//	 "expected_output": "..."}               // a reference answer for the judge
//
// Keys it does not know (an imported criterion's) are kept and reported as
// ignored, never silently acted on.

// Bounds of an expectation config a tenant writes.
const (
	maxConfigBytes = 64 << 10
	maxStrings     = 50
	maxPatternLen  = 1000
	maxStringLen   = 10_000
)

// ErrInvalidExpectation wraps what is wrong with an expectation config.
var ErrInvalidExpectation = errors.New("invalid expectation_config")

// Expectation is a compiled expectation config.
type Expectation struct {
	schema         *jsonschema.Schema
	isJSON         bool
	regex, notRe   []*regexp.Regexp
	contains, notC []string
	caseSensitive  bool
	equals         *string
	numMin, numMax *float64
	numPath        []string
	numeric        bool
	minLen, maxLen *int
	// Reference is an expected answer the judge compares against.
	Reference string
	// Ignored lists keys this version does not act on.
	Ignored []string
}

// Check is the outcome of one deterministic check.
type Check struct {
	Name   string `json:"check"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

var knownKeys = []string{"json_schema", "is_json", "regex", "not_regex", "contains", "not_contains", "case_sensitive",
	"equals", "exact_match", "numeric_range", "min_length", "max_length", "expected_output"}

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidExpectation, fmt.Sprintf(format, args...))
}

// ParseExpectation compiles an expectation config; nil or {} checks nothing.
func ParseExpectation(config []byte) (*Expectation, error) {
	e := &Expectation{}
	if len(config) == 0 || string(config) == "null" {
		return e, nil
	}
	if len(config) > maxConfigBytes {
		return nil, bad("larger than %d bytes", maxConfigBytes)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(config, &m); err != nil {
		return nil, bad("not a JSON object: %v", err)
	}
	for k := range m {
		if !slices.Contains(knownKeys, k) {
			e.Ignored = append(e.Ignored, k)
		}
	}
	slices.Sort(e.Ignored)
	if raw, ok := m["json_schema"]; ok && string(raw) != "null" {
		s, err := compileSchema(raw)
		if err != nil {
			return nil, bad("json_schema: %v", err)
		}
		e.schema = s
	}
	var err error
	if e.isJSON, err = optBool(m, "is_json"); err != nil {
		return nil, err
	}
	if e.caseSensitive, err = optBool(m, "case_sensitive"); err != nil {
		return nil, err
	}
	for _, k := range []string{"regex", "not_regex"} {
		pats, err := stringsOf(m, k)
		if err != nil {
			return nil, err
		}
		for _, p := range pats {
			if len(p) > maxPatternLen {
				return nil, bad("%s: a pattern is at most %d characters", k, maxPatternLen)
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, bad("%s: pattern %q does not compile: %v", k, clip(p), err)
			}
			if k == "regex" {
				e.regex = append(e.regex, re)
			} else {
				e.notRe = append(e.notRe, re)
			}
		}
	}
	if e.contains, err = stringsOf(m, "contains"); err != nil {
		return nil, err
	}
	if e.notC, err = stringsOf(m, "not_contains"); err != nil {
		return nil, err
	}
	for _, k := range []string{"equals", "exact_match", "expected_output"} {
		raw, ok := m[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || len(s) > maxStringLen {
			return nil, bad("%s must be a string of at most %d characters", k, maxStringLen)
		}
		if k == "expected_output" {
			e.Reference = s
		} else {
			e.equals = &s
		}
	}
	if raw, ok := m["numeric_range"]; ok && string(raw) != "null" {
		var r struct {
			Min  *float64 `json:"min"`
			Max  *float64 `json:"max"`
			Path string   `json:"path"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, bad("numeric_range must be {min, max, path}: %v", err)
		}
		if r.Min == nil && r.Max == nil {
			return nil, bad("numeric_range needs min, max or both")
		}
		if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
			return nil, bad("numeric_range: min is above max")
		}
		e.numeric, e.numMin, e.numMax = true, r.Min, r.Max
		if e.numPath, err = parsePath(r.Path); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"min_length", "max_length"} {
		raw, ok := m[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var n int
		if err := json.Unmarshal(raw, &n); err != nil || n < 0 {
			return nil, bad("%s must be a whole number of at least 0", k)
		}
		if k == "min_length" {
			e.minLen = &n
		} else {
			e.maxLen = &n
		}
	}
	return e, nil
}

func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, isBool := doc.(bool); !isBool {
			return nil, errors.New("a schema is an object")
		}
	}
	c := jsonschema.NewCompiler()
	// No loader: a schema never makes the server fetch or read anything.
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource("expectation.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("expectation.json")
}

func optBool(m map[string]json.RawMessage, k string) (bool, error) {
	raw, ok := m[k]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, bad("%s must be true or false", k)
	}
	return b, nil
}

// stringsOf reads a string or a list of strings.
func stringsOf(m map[string]json.RawMessage, k string) ([]string, error) {
	raw, ok := m[k]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		raw, _ = json.Marshal([]string{one})
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, bad("%s must be a string or a list of strings", k)
	}
	if len(list) > maxStrings {
		return nil, bad("%s has at most %d entries", k, maxStrings)
	}
	for _, s := range list {
		if s == "" || len(s) > maxStringLen {
			return nil, bad("%s: each entry is 1 to %d characters", k, maxStringLen)
		}
	}
	return list, nil
}

// parsePath reads "$.a.b[0]" or "a.b.0" as keys and indexes.
func parsePath(p string) ([]string, error) {
	p = strings.TrimSpace(p)
	if p == "" || p == "$" {
		return nil, nil
	}
	if len(p) > 500 {
		return nil, bad("numeric_range.path is at most 500 characters")
	}
	p = strings.TrimPrefix(strings.TrimPrefix(p, "$"), ".")
	p = strings.NewReplacer("[", ".", "]", "").Replace(p)
	parts := strings.Split(p, ".")
	if len(parts) > 32 {
		return nil, bad("numeric_range.path is at most 32 levels deep")
	}
	for _, s := range parts {
		if s == "" {
			return nil, bad("numeric_range.path %q has an empty part", clip(p))
		}
	}
	return parts, nil
}

// Empty reports whether the expectation checks nothing.
func (e *Expectation) Empty() bool {
	return e.schema == nil && !e.isJSON && len(e.regex) == 0 && len(e.notRe) == 0 && len(e.contains) == 0 &&
		len(e.notC) == 0 && e.equals == nil && !e.numeric && e.minLen == nil && e.maxLen == nil
}

// Check runs every check on output, in a fixed order.
func (e *Expectation) Check(output string) []Check {
	var out []Check
	trimmed := strings.TrimSpace(output)
	var doc any
	docErr := errors.New("not parsed")
	if e.schema != nil || e.isJSON || (e.numeric && len(e.numPath) > 0) {
		doc, docErr = jsonschema.UnmarshalJSON(strings.NewReader(stripFence(trimmed)))
	}
	if e.isJSON {
		c := Check{Name: "is_json", Passed: docErr == nil, Detail: "the output is JSON"}
		if docErr != nil {
			c.Detail = "the output is not valid JSON: " + clip(docErr.Error())
		}
		out = append(out, c)
	}
	if e.schema != nil {
		c := Check{Name: "json_schema", Passed: true, Detail: "the output is JSON valid against the schema"}
		if docErr != nil {
			c.Passed, c.Detail = false, "the output is not valid JSON: "+clip(docErr.Error())
		} else if err := e.schema.Validate(doc); err != nil {
			c.Passed, c.Detail = false, "the output does not match the schema: "+schemaError(err)
		}
		out = append(out, c)
	}
	for _, re := range e.regex {
		c := Check{Name: "regex", Passed: re.MatchString(output), Detail: fmt.Sprintf("the output matches /%s/", clip(re.String()))}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the output does not match /%s/", clip(re.String()))
		}
		out = append(out, c)
	}
	for _, re := range e.notRe {
		c := Check{Name: "not_regex", Passed: !re.MatchString(output), Detail: fmt.Sprintf("the output does not match /%s/", clip(re.String()))}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the output matches /%s/, which it must not", clip(re.String()))
		}
		out = append(out, c)
	}
	hay := output
	if !e.caseSensitive && (len(e.contains) > 0 || len(e.notC) > 0) {
		hay = strings.ToLower(output)
	}
	norm := func(s string) string {
		if e.caseSensitive {
			return s
		}
		return strings.ToLower(s)
	}
	for _, s := range e.contains {
		c := Check{Name: "contains", Passed: strings.Contains(hay, norm(s)), Detail: fmt.Sprintf("the output contains %q", clip(s))}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the output does not contain %q", clip(s))
		}
		out = append(out, c)
	}
	for _, s := range e.notC {
		c := Check{Name: "not_contains", Passed: !strings.Contains(hay, norm(s)), Detail: fmt.Sprintf("the output does not contain %q", clip(s))}
		if !c.Passed {
			c.Detail = fmt.Sprintf("the output contains %q, which it must not", clip(s))
		}
		out = append(out, c)
	}
	if e.equals != nil {
		c := Check{Name: "equals", Passed: trimmed == strings.TrimSpace(*e.equals), Detail: "the output equals the expected text"}
		if !c.Passed {
			c.Detail = "the output differs from the expected text"
		}
		out = append(out, c)
	}
	if e.numeric {
		out = append(out, e.checkNumber(trimmed, doc, docErr))
	}
	n := utf8.RuneCountInString(output)
	if e.minLen != nil {
		out = append(out, Check{Name: "min_length", Passed: n >= *e.minLen, Detail: fmt.Sprintf("the output has %d characters (at least %d wanted)", n, *e.minLen)})
	}
	if e.maxLen != nil {
		out = append(out, Check{Name: "max_length", Passed: n <= *e.maxLen, Detail: fmt.Sprintf("the output has %d characters (at most %d allowed)", n, *e.maxLen)})
	}
	return out
}

func (e *Expectation) checkNumber(trimmed string, doc any, docErr error) Check {
	c := Check{Name: "numeric_range"}
	var v float64
	if len(e.numPath) == 0 {
		f, err := strconv.ParseFloat(trimmed, 64)
		if err != nil {
			c.Detail = "the output is not a number"
			return c
		}
		v = f
	} else {
		if docErr != nil {
			c.Detail = "the output is not JSON, so $." + strings.Join(e.numPath, ".") + " cannot be read"
			return c
		}
		cur := doc
		for _, k := range e.numPath {
			switch t := cur.(type) {
			case map[string]any:
				cur = t[k]
			case []any:
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(t) {
					cur = nil
				} else {
					cur = t[i]
				}
			default:
				cur = nil
			}
		}
		switch t := cur.(type) {
		case json.Number:
			f, err := t.Float64()
			if err != nil {
				c.Detail = "the value at the path is not a number"
				return c
			}
			v = f
		case float64:
			v = t
		default:
			c.Detail = "there is no number at $." + strings.Join(e.numPath, ".")
			return c
		}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		c.Detail = "the value is not a finite number"
		return c
	}
	c.Passed = (e.numMin == nil || v >= *e.numMin) && (e.numMax == nil || v <= *e.numMax)
	c.Detail = fmt.Sprintf("the value %g is %s the range [%s, %s]", v, map[bool]string{true: "within", false: "outside"}[c.Passed], bound(e.numMin), bound(e.numMax))
	return c
}

func bound(f *float64) string {
	if f == nil {
		return "…"
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

func schemaError(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		// The innermost causes say what is wrong where.
		for len(ve.Causes) > 0 {
			ve = ve.Causes[0]
		}
		loc := "/" + strings.Join(ve.InstanceLocation, "/")
		return clip(fmt.Sprintf("at %s: %v", loc, ve.ErrorKind))
	}
	return clip(err.Error())
}

// stripFence removes a Markdown code fence around JSON.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}

func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
