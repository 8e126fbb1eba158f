package offline

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// filler supplies content for schema generation: everything the model
// knows comes from the prompt, so every string it writes does too.
type filler struct {
	question  string   // the user's request
	answer    string   // the extractive answer to it
	summary   string   // leading sentences of the context
	sentences []string // context sentences in original order
	text      string   // all prompt text, for extraction
	isoDates  bool     // the instructions ask for ISO dates: quarters do not qualify
	emb       *Embedder
}

// generateJSON returns a JSON document valid against schema (raw JSON),
// filled from f, or an error wrapping ErrSchema when the schema uses
// constraints the generator cannot meet.
func generateJSON(schema []byte, f *filler) ([]byte, error) {
	root, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	g := &generator{f: f}
	// One budget covers generation and every validation it does, so a
	// hostile schema costs a bounded amount of work.
	budget := generateBudget
	n := node{root: root, s: root, budget: &budget}
	v, err := g.gen(n, "", 0, 0)
	if err != nil {
		return nil, err
	}
	final := validateBudget
	if err := validate(node{root: root, s: root, budget: &final}, v, "$", 0); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	return json.Marshal(v)
}

type generator struct {
	f *filler
}

// generateBudget bounds one generation (steps of generating and
// validating); ordinary schemas use a few hundred.
const generateBudget = 500_000

func (g *generator) gen(n node, name string, idx, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: schema too deep", ErrSchema)
	}
	if !n.spend() {
		return nil, errBudget
	}
	if b, ok := n.s.(bool); ok {
		if !b {
			return nil, fmt.Errorf("%w: false schema", ErrSchema)
		}
		return g.f.pickString(name, idx), nil
	}
	n, err := n.resolve()
	if err != nil {
		return nil, err
	}
	if _, ok := n.s.(bool); ok {
		return g.gen(n, name, idx, depth+1)
	}
	if c, ok := n.get("const"); ok {
		return c, nil
	}
	if e := n.list("enum"); e != nil {
		return g.pickEnum(n, e, name)
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		if branches := n.list(kw); branches != nil {
			return g.genBranches(n, kw, branches, name, idx, depth)
		}
	}
	if subs := n.list("allOf"); subs != nil {
		merged, err := mergeAllOf(n, subs)
		if err != nil {
			return nil, err
		}
		v, err := g.gen(merged, name, idx, depth+1)
		if err != nil {
			return nil, err
		}
		if err := validate(n, v, "$", depth); err != nil {
			return nil, fmt.Errorf("%w: allOf: %v", ErrSchema, err)
		}
		return v, nil
	}
	order := g.typeOrder(n)
	if len(order) > 1 && order[len(order)-1] == "null" && g.f.absent(name, n.str("description")) {
		order = append([]string{"null"}, order[:len(order)-1]...)
	}
	var lastErr error
	for _, t := range order {
		var v any
		switch t {
		case "object":
			v, err = g.genObject(n, depth)
		case "array":
			v, err = g.genArray(n, name, depth)
		case "string":
			v, err = g.genString(n, name, idx)
		case "integer", "number":
			v, err = g.genNumber(n, name, t == "integer")
		case "boolean":
			v, err = g.f.pickBool(name), nil
			if validate(n, v, "$", depth) != nil {
				v = !v.(bool)
			}
		case "null":
			v, err = nil, nil
		default:
			continue
		}
		if err != nil {
			lastErr = err
			continue
		}
		if verr := validate(n, v, "$", depth); verr != nil {
			lastErr = fmt.Errorf("%w: %v", ErrSchema, verr)
			continue
		}
		return v, nil
	}
	// Last resorts: the schema's own default and examples.
	if d, ok := n.get("default"); ok && validate(n, d, "$", depth) == nil {
		return d, nil
	}
	for _, ex := range n.list("examples") {
		if validate(n, ex, "$", depth) == nil {
			return ex, nil
		}
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("%w: no type can satisfy the schema", ErrSchema)
	}
	return nil, lastErr
}

// typeOrder lists the types to try: declared types with null last (a
// value says more than null), or types inferred from the keywords present.
func (g *generator) typeOrder(n node) []string {
	ts := n.types()
	if ts == nil {
		switch {
		case has(n, "properties", "required", "additionalProperties", "minProperties"):
			ts = []string{"object"}
		case has(n, "items", "prefixItems", "minItems", "maxItems"):
			ts = []string{"array"}
		case has(n, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
			ts = []string{"number"}
		default:
			ts = []string{"string", "object", "number", "boolean", "array", "null"}
		}
	}
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if t != "null" {
			out = append(out, t)
		}
	}
	for _, t := range ts {
		if t == "null" {
			out = append(out, t)
		}
	}
	return out
}

func has(n node, kws ...string) bool {
	for _, k := range kws {
		if _, ok := n.get(k); ok {
			return true
		}
	}
	return false
}

func (g *generator) pickEnum(n node, values []any, name string) (any, error) {
	// Prefer the value the prompt mentions (question first), so that a
	// classification schema gets the label the text talks about.
	type cand struct {
		v     any
		score int
	}
	q := strings.ToLower(g.f.question)
	t := strings.ToLower(g.f.text)
	cands := make([]cand, len(values))
	for i, v := range values {
		score := 0
		if s, ok := v.(string); ok && s != "" {
			ls := strings.ToLower(s)
			if containsWord(q, ls) {
				score = 2
			} else if containsWord(t, ls) {
				score = 1
			}
		}
		cands[i] = cand{v, score}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	for _, c := range cands {
		if validate(n, c.v, "$", 0) == nil {
			return c.v, nil
		}
	}
	return nil, fmt.Errorf("%w: no enum value satisfies the schema", ErrSchema)
}

func containsWord(haystack, w string) bool {
	for i := 0; ; {
		j := strings.Index(haystack[i:], w)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(w)
		before, _ := utf8.DecodeLastRuneInString(haystack[:s])
		after, _ := utf8.DecodeRuneInString(haystack[e:])
		if (s == 0 || !isWordRune(before)) && (e == len(haystack) || !isWordRune(after)) {
			return true
		}
		i = s + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func (g *generator) genBranches(n node, kw string, branches []any, name string, idx, depth int) (any, error) {
	// Try branches in order, non-null ones first; keep the first value
	// that satisfies the whole schema (for oneOf, exactly one branch).
	order := make([]int, 0, len(branches))
	for i, b := range branches {
		if !isNullSchema(b) {
			order = append(order, i)
		}
	}
	for i, b := range branches {
		if isNullSchema(b) {
			order = append(order, i)
		}
	}
	base := n.obj()
	var lastErr error
	for _, i := range order {
		// Generate from the branch combined with the sibling keywords.
		combined := map[string]any{}
		for k, v := range base {
			if k != kw {
				combined[k] = v
			}
		}
		branch := n.child(branches[i])
		if rb, err := branch.resolve(); err == nil {
			branch = rb
		}
		if bm := branch.obj(); bm != nil {
			for k, v := range bm {
				combined[k] = v
			}
		} else if b, _ := branch.s.(bool); !b {
			continue
		}
		v, err := g.gen(n.child(combined), name, idx, depth+1)
		if err != nil {
			lastErr = err
			continue
		}
		if err := validate(n, v, "$", depth); err != nil {
			lastErr = fmt.Errorf("%w: %s: %v", ErrSchema, kw, err)
			continue
		}
		return v, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("%w: no %s branch can be satisfied", ErrSchema, kw)
	}
	return nil, lastErr
}

func isNullSchema(s any) bool {
	m, ok := s.(map[string]any)
	return ok && m["type"] == "null"
}

// mergeAllOf folds allOf subschemas into one: properties and required are
// unioned, other keywords of later schemas win. The result is validated
// against the original, so an imperfect merge cannot produce bad output.
func mergeAllOf(n node, subs []any) (node, error) {
	out := map[string]any{}
	props := map[string]any{}
	var required []any
	add := func(m map[string]any) {
		for k, v := range m {
			switch k {
			case "allOf":
			case "properties":
				if pm, ok := v.(map[string]any); ok {
					for pk, pv := range pm {
						props[pk] = pv
					}
				}
			case "required":
				if l, ok := v.([]any); ok {
					required = append(required, l...)
				}
			default:
				out[k] = v
			}
		}
	}
	for _, s := range subs {
		sn := n.child(s)
		r, err := sn.resolve()
		if err != nil {
			return n, err
		}
		if b, ok := r.s.(bool); ok {
			if !b {
				return n, fmt.Errorf("%w: allOf contains false", ErrSchema)
			}
			continue
		}
		add(r.obj())
	}
	add(n.obj())
	if len(props) > 0 {
		out["properties"] = props
	}
	if len(required) > 0 {
		out["required"] = required
	}
	return n.child(out), nil
}

func (g *generator) genObject(n node, depth int) (any, error) {
	out := map[string]any{}
	props, _ := n.get("properties")
	pm, _ := props.(map[string]any)
	required := map[string]bool{}
	for _, r := range n.list("required") {
		if k, ok := r.(string); ok {
			required[k] = true
		}
	}
	keys := make([]string, 0, len(pm))
	for k := range pm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	maxProps, hasMax := n.intKw("maxProperties")
	// Required properties first, so maxProperties drops optional ones.
	sort.SliceStable(keys, func(i, j int) bool { return required[keys[i]] && !required[keys[j]] })
	for _, k := range keys {
		if hasMax && len(out) >= maxProps && !required[k] {
			break
		}
		if !required[k] && depth > 8 {
			continue
		}
		v, err := g.gen(n.child(pm[k]), k, 0, depth+1)
		if err != nil {
			if required[k] {
				return nil, err
			}
			continue
		}
		out[k] = v
	}
	// Required properties not declared in properties are governed by
	// additionalProperties.
	addl, hasAddl := n.get("additionalProperties")
	if !hasAddl {
		addl = true
	}
	for k := range required {
		if _, done := out[k]; done {
			continue
		}
		v, err := g.gen(n.child(addl), k, 0, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	if minProps, ok := n.intKw("minProperties"); ok {
		for i := 1; len(out) < minProps && i <= minProps+len(keys); i++ {
			k := fmt.Sprintf("field_%d", i)
			if _, taken := out[k]; taken {
				continue
			}
			if _, declared := pm[k]; declared {
				continue
			}
			v, err := g.gen(n.child(addl), k, i, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
	}
	return out, nil
}

func (g *generator) genArray(n node, name string, depth int) (any, error) {
	minItems, _ := n.intKw("minItems")
	maxItems, hasMax := n.intKw("maxItems")
	if !hasMax {
		maxItems = 1 << 20
	}
	if minItems > 1000 || minItems > maxItems {
		return nil, fmt.Errorf("%w: cannot build %d items", ErrSchema, minItems)
	}
	prefix := n.list("prefixItems")
	items, hasItems := n.get("items")
	if tuple, ok := items.([]any); ok {
		prefix = tuple
		items, hasItems = n.get("additionalItems")
	}
	if !hasItems {
		items = true
	}
	if b, ok := items.(bool); ok && !b {
		maxItems = min(maxItems, len(prefix))
	}
	want := max(g.f.listSize(name), minItems, len(prefix))
	want = min(want, maxItems)
	unique, _ := n.get("uniqueItems")
	out := make([]any, 0, want)
	for i, tries := 0, 0; len(out) < want && tries < want+50; tries++ {
		var s any = items
		if len(out) < len(prefix) {
			s = prefix[len(out)]
		}
		v, err := g.gen(n.child(s), singular(name), i, depth+1)
		i++
		if err != nil {
			if len(out) >= minItems && len(out) >= len(prefix) {
				break
			}
			return nil, err
		}
		if unique == true {
			dup := false
			for _, x := range out {
				if jsonEqual(x, v) {
					dup = true
				}
			}
			if dup {
				continue
			}
		}
		out = append(out, v)
	}
	if len(out) < minItems {
		return nil, fmt.Errorf("%w: could not build %d distinct items", ErrSchema, minItems)
	}
	return out, nil
}

// singular turns a list's property name into its items' name ("tags" →
// "tag"), so item strings are chosen by the same name rules.
func singular(name string) string {
	if strings.HasSuffix(name, "ies") {
		return name[:len(name)-3] + "y"
	}
	return strings.TrimSuffix(name, "s")
}

func (g *generator) genString(n node, name string, idx int) (any, error) {
	minLen, _ := n.intKw("minLength")
	maxLen, hasMax := n.intKw("maxLength")
	if !hasMax {
		maxLen = -1
	}
	if hasMax && minLen > maxLen {
		return nil, fmt.Errorf("%w: minLength > maxLength", ErrSchema)
	}
	format := n.str("format")
	cands := g.f.stringCandidates(name, n.str("description"), format, idx)
	if d, ok := n.get("default"); ok {
		if s, ok := d.(string); ok {
			cands = append(cands, s)
		}
	}
	for _, ex := range n.list("examples") {
		if s, ok := ex.(string); ok {
			cands = append(cands, s)
		}
	}
	if n.str("pattern") != "" {
		cands = append(cands, g.f.patternCandidates()...)
	}
	for _, c := range cands {
		s := fitLength(c, minLen, maxLen, g.f)
		if validateString(n, s, "$") == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w: no text from the prompt satisfies the string constraints", ErrSchema)
}

// fitLength truncates s to maxLen runes or pads it to minLen with more
// words from the prompt (then with the string itself repeated).
func fitLength(s string, minLen, maxLen int, f *filler) string {
	if maxLen >= 0 && utf8.RuneCountInString(s) > maxLen {
		s = strings.TrimSpace(truncateRunes(s, maxLen))
		for utf8.RuneCountInString(s) < minLen { // trimming may undercut minLen
			s += "."
		}
		return s
	}
	if l := utf8.RuneCountInString(s); l < minLen {
		pad := f.text
		if pad == "" {
			pad = "offline"
		}
		var b strings.Builder
		b.WriteString(s)
		for utf8.RuneCountInString(b.String()) < minLen {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(pad)
		}
		s = b.String()
		if maxLen >= 0 {
			s = truncateRunes(s, maxLen)
		}
		if minLen > 0 && maxLen < 0 {
			s = truncateRunes(s, max(minLen, utf8.RuneCountInString(s)))
		}
	}
	return s
}

func (g *generator) genNumber(n node, name string, integer bool) (any, error) {
	var cands []float64
	cands = append(cands, g.f.numbersFor(name)...)
	if d, ok := n.get("default"); ok {
		if f, ok := toFloat(d); ok {
			cands = append(cands, f)
		}
	}
	lo, hasLo := n.num("minimum")
	hi, hasHi := n.num("maximum")
	exLo := false
	exHi := false
	if v, _ := n.get("exclusiveMinimum"); v == true {
		exLo = true
	} else if f, ok := n.num("exclusiveMinimum"); ok && (!hasLo || f >= lo) {
		lo, hasLo, exLo = f, true, true
	}
	if v, _ := n.get("exclusiveMaximum"); v == true {
		exHi = true
	} else if f, ok := n.num("exclusiveMaximum"); ok && (!hasHi || f <= hi) {
		hi, hasHi, exHi = f, true, true
	}
	step, hasStep := n.num("multipleOf")
	if hasStep && step <= 0 {
		hasStep = false
	}
	if integer {
		if hasStep {
			// Integers that are multiples of step are multiples of the
			// least common multiple of step and 1, when step is rational.
			if step != math.Trunc(step) {
				if inv := 1 / step; inv == math.Trunc(inv) {
					step, hasStep = 1, true
				}
			}
		} else {
			step, hasStep = 1, true
		}
	}
	// The smallest admissible value, and zero pulled into range.
	base := 0.0
	if hasLo {
		base = lo
	}
	if hasLo && hasHi && lo <= 0 && hi >= 0 {
		base = 0
	}
	cands = append(cands, base)
	for _, c := range cands {
		v := c
		if hasStep {
			v = math.Round(v/step) * step
			if hasLo && (v < lo || exLo && v <= lo) {
				v = math.Floor(lo/step)*step + step
			}
			if hasHi && (v > hi || exHi && v >= hi) {
				v = math.Ceil(hi/step)*step - step
			}
		} else {
			if hasLo && (v < lo || exLo && v <= lo) {
				v = lo
				if exLo {
					v = nextUp(lo, hi, hasHi)
				}
			}
			if hasHi && (v > hi || exHi && v >= hi) {
				v = hi
				if exHi {
					v = nextDown(hi, lo, hasLo)
				}
			}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e15 && integer {
			continue
		}
		num := formatNumber(v, integer)
		if validate(n, num, "$", 0) == nil {
			return num, nil
		}
	}
	return nil, fmt.Errorf("%w: no number satisfies the bounds", ErrSchema)
}

func nextUp(lo, hi float64, hasHi bool) float64 {
	v := lo + 1
	if hasHi && v >= hi {
		v = lo + (hi-lo)/2
	}
	return v
}

func nextDown(hi, lo float64, hasLo bool) float64 {
	v := hi - 1
	if hasLo && v <= lo {
		v = lo + (hi-lo)/2
	}
	return v
}

func formatNumber(v float64, integer bool) json.Number {
	if integer || v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return json.Number(strconv.FormatInt(int64(v), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

// --- content selection -------------------------------------------------

// nameWords splits snake_case, kebab-case and camelCase names into words.
func nameWords(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
		case unicode.IsUpper(r) && prevLower:
			flush()
			cur = append(cur, r)
			prevLower = false
		default:
			cur = append(cur, r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	flush()
	return out
}

func nameHas(name string, keys ...string) bool {
	for _, w := range nameWords(name) {
		for _, k := range keys {
			if w == k {
				return true
			}
		}
	}
	return false
}

// listSize is how many items a list property gets: as many keywords or
// sentences as the prompt offers (up to 5 or 3), else one.
func (f *filler) listSize(name string) int {
	if k := fieldKind(name, ""); k != "" {
		return min(10, len(f.values(k)))
	}
	switch {
	case nameHas(name, "keywords", "keyword", "tags", "tag", "topics", "topic", "entities", "labels", "categories", "terms"):
		return min(5, len(keywords(f.text, 5)))
	case nameHas(name, "sentences", "points", "highlights", "bullets", "steps", "facts", "findings", "reasons", "items", "quotes", "evidence"):
		return min(3, len(f.sentences))
	}
	if len(f.sentences) == 0 {
		return 0
	}
	return 1
}

// values extracts the values of a field kind from the material.
func (f *filler) values(kind string) []string {
	vals := kindValues(kind, f.text)
	if kind == "date" && f.isoDates {
		out := vals[:0:0]
		for _, v := range vals {
			if reISOish.MatchString(v) {
				out = append(out, v)
			}
		}
		vals = out
	}
	return vals
}

var reISOish = regexp.MustCompile(`^\d{4}-\d{2}(-\d{2})?$`)

// absent says a nullable property is better null: the prompt has no
// material, or the property asks for an entity the material lacks.
func (f *filler) absent(name, desc string) bool {
	if strings.TrimSpace(f.text) == "" {
		return !nameHas(name, "question", "query", "q", "search", "prompt", "input", "request")
	}
	if k := fieldKind(name, desc); k != "" {
		return len(f.values(k)) == 0
	}
	return false
}

// stringCandidates lists strings for a property, best first.
func (f *filler) stringCandidates(name, desc, format string, idx int) []string {
	var c []string
	if k := fieldKind(name, desc); k != "" && format == "" {
		if vals := f.values(k); len(vals) > 0 {
			c = append(c, vals[idx%len(vals)])
		}
	}
	switch format {
	case "date":
		c = append(c, reDate.FindAllString(f.text, -1)...)
		c = append(c, "2000-01-01")
	case "date-time":
		for _, m := range reDate.FindAllString(f.text, -1) {
			c = append(c, m+"T00:00:00Z")
		}
		c = append(c, "2000-01-01T00:00:00Z")
	case "time":
		c = append(c, "00:00:00Z")
	case "email":
		c = append(c, reEmail.FindAllString(f.text, -1)...)
		c = append(c, "user@example.com")
	case "uri", "url":
		c = append(c, reURL.FindAllString(f.text, -1)...)
		c = append(c, "https://example.com/")
	case "uuid":
		c = append(c, f.uuid(name, idx))
	}
	switch {
	case nameHas(name, "summary", "abstract", "overview", "tldr", "synopsis", "digest"):
		c = append(c, f.summary)
	case nameHas(name, "answer", "response", "reply", "result", "output", "explanation", "reason", "reasoning", "rationale", "justification", "comment", "feedback", "content", "body", "text", "message", "description", "details"):
		c = append(c, f.answer)
	case nameHas(name, "title", "headline", "subject", "heading", "caption"):
		c = append(c, title(f.text, f.sentences))
	case nameHas(name, "question", "query", "q", "search", "prompt", "input", "request", "instruction"):
		c = append(c, f.question)
	case nameHas(name, "language", "lang", "locale"):
		c = append(c, "en")
	case nameHas(name, "name", "city", "location", "place", "country", "person", "company", "organization", "organisation", "author", "customer", "user", "owner"):
		if names := properNames(f.question + "\n" + f.text); len(names) > 0 {
			c = append(c, names[idx%len(names)])
		}
	case nameHas(name, "email"):
		c = append(c, reEmail.FindAllString(f.text, -1)...)
	case nameHas(name, "url", "link", "href", "uri", "website"):
		c = append(c, reURL.FindAllString(f.text, -1)...)
	case nameHas(name, "keyword", "tag", "topic", "entity", "label", "category", "term"):
		if kw := keywords(f.text, 8); len(kw) > 0 {
			c = append(c, kw[idx%len(kw)])
		}
	case nameHas(name, "sentence", "point", "highlight", "bullet", "step", "fact", "finding", "item", "quote"):
		if len(f.sentences) > 0 {
			c = append(c, f.rankedSentences(f.question)[idx%len(f.sentences)])
		}
	}
	if len(f.sentences) > 0 {
		ranked := f.rankedSentences(strings.Join(nameWords(name), " ") + " " + desc)
		c = append(c, ranked[idx%len(ranked)])
	}
	// Free text falls back on the answer and the summary; the question
	// is never an answer to itself.
	c = append(c, f.answer, f.summary)
	out := c[:0]
	seen := map[string]bool{}
	for _, s := range c {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = append(out, "")
	}
	return out
}

// patternCandidates offers every word, number and name of the prompt as a
// string that might match a pattern the generator cannot invert.
func (f *filler) patternCandidates() []string {
	var out []string
	src := f.question + "\n" + f.text
	out = append(out, reEmail.FindAllString(src, 50)...)
	out = append(out, reURL.FindAllString(src, 50)...)
	out = append(out, reDate.FindAllString(src, 50)...)
	out = append(out, reNumber.FindAllString(src, 100)...)
	for _, w := range strings.Fields(src) {
		out = append(out, w)
		if t := strings.Trim(w, ".,;:!?\"'()[]{}"); t != w && t != "" {
			out = append(out, t)
		}
	}
	if len(out) > 400 {
		out = out[:400]
	}
	return out
}

// rankedSentences orders the context sentences by similarity to query.
func (f *filler) rankedSentences(query string) []string {
	return rankSentences(f.emb, query, f.sentences)
}

// numbersFor returns numbers the prompt states for the property: those
// right after its name ("price: 42", "price of 42") first, then all.
func (f *filler) numbersFor(name string) []float64 {
	var out []float64
	lower := strings.ToLower(f.question + "\n" + f.text)
	for _, w := range nameWords(name) {
		if len(w) < 3 {
			continue
		}
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			rest := lower[i+j+len(w):]
			if loc := reNumber.FindStringIndex(rest); loc != nil && loc[0] < 16 {
				if v, ok := parseNumber(rest[loc[0]:loc[1]]); ok {
					out = append(out, v)
				}
			}
			i += j + len(w)
		}
	}
	for _, m := range reNumber.FindAllString(f.question+"\n"+f.text, 20) {
		if v, ok := parseNumber(m); ok {
			out = append(out, v)
		}
	}
	return out
}

func parseNumber(s string) (float64, bool) {
	s = strings.ReplaceAll(s, ",", "")
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsInf(v, 0)
}

// pickBool says true when the prompt mentions the property's words (a
// flag like "is_urgent" is true for a message that says "urgent"), unless
// a negation directly precedes the mention.
func (f *filler) pickBool(name string) bool {
	text := strings.ToLower(f.question + " " + f.text)
	for _, w := range nameWords(name) {
		if len(w) < 4 || w == "has" || w == "is" {
			continue
		}
		stem := w[:min(len(w), 6)]
		for i := 0; ; {
			j := strings.Index(text[i:], stem)
			if j < 0 {
				break
			}
			before := strings.Fields(text[max(0, i+j-12) : i+j])
			if len(before) == 0 || (before[len(before)-1] != "not" && before[len(before)-1] != "no" && before[len(before)-1] != "never") {
				return true
			}
			i += j + len(stem)
		}
	}
	return false
}

// pickString is used for schemas that admit anything.
func (f *filler) pickString(name string, idx int) string {
	return f.stringCandidates(name, "", "", idx)[0]
}

// uuid derives a stable version-4-shaped UUID from the prompt and name.
func (f *filler) uuid(name string, idx int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", f.text, name, idx)))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
