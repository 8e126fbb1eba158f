package definition

import (
	"sort"
	"strconv"
	"strings"
)

// Templates are strings with {{…}} placeholders, rendered at run time. This
// file only finds and classifies placeholders; rendering is the engine's.
// The forms that matter statically:
//
//	{{input}}, {{agent.input}}            the step's / the run's input
//	{{step.<id>.input}}, {{step.<id>.output}}  another step's input or output
//	{{agent.attachments}}, {{attachments}}  every uploaded file
//	{{attachments[0]}}                     the first upload (by index)
//	{{attachments["report.pdf"]}}          the upload with that exact name
//	{{attachments[*.csv]}}                 uploads matching an fnmatch glob
//
// Selector values may be quoted with " or ' or left bare; a value with *, ?
// or [ is a glob, an unquoted run of digits an index, anything else an exact
// name. Anything after the closing bracket (`.text`, `| filter`) is left to
// the engine. Other placeholders ({{metadata.key}}, {{agent.run_id}}…) are
// kept as PlaceholderOther.

// PlaceholderKind classifies a placeholder.
type PlaceholderKind string

// Placeholder kinds.
const (
	PlaceholderInput          PlaceholderKind = "input"           // {{input}}, {{agent.input}}
	PlaceholderStep           PlaceholderKind = "step"            // {{step.<id>.input|output}}
	PlaceholderAllAttachments PlaceholderKind = "all_attachments" // {{agent.attachments}}, {{attachments}}
	PlaceholderAttachment     PlaceholderKind = "attachment"      // {{attachments[…]}}
	PlaceholderOther          PlaceholderKind = "other"
)

// SelectorKind is how an attachment selector picks files.
type SelectorKind string

// Selector kinds; also the values of the contract's `kinds`.
const (
	SelectorIndex   SelectorKind = "index"
	SelectorName    SelectorKind = "name"
	SelectorPattern SelectorKind = "pattern"
)

// Selector is the bracketed part of {{attachments[…]}}.
type Selector struct {
	Kind  SelectorKind
	Index int    // for SelectorIndex
	Value string // the exact name or the glob
}

// String renders the selector as it is listed in the contract.
func (s Selector) String() string {
	if s.Kind == SelectorIndex {
		return strconv.Itoa(s.Index)
	}
	return s.Value
}

// Placeholder is one {{…}} occurrence in a template.
type Placeholder struct {
	Expr      string // text between the braces, trimmed
	Kind      PlaceholderKind
	StepID    string // for PlaceholderStep
	StepField string // "input" or "output"
	Selector  Selector
	Invalid   string // why an {{attachments[…]}} selector could not be read
}

// maxIndex bounds index selectors: a run takes at most a few dozen files, so
// larger numbers are typos and must not become huge minimum batch sizes.
const maxIndex = 1000

// ParsePlaceholders returns the placeholders of a template in order.
func ParsePlaceholders(tpl string) []Placeholder {
	var out []Placeholder
	for i := 0; i < len(tpl); {
		open := strings.Index(tpl[i:], "{{")
		if open < 0 {
			break
		}
		open += i
		end := strings.Index(tpl[open+2:], "}}")
		if end < 0 {
			break
		}
		end += open + 2
		out = append(out, classify(strings.TrimSpace(tpl[open+2:end])))
		i = end + 2
	}
	return out
}

func classify(expr string) Placeholder {
	p := Placeholder{Expr: expr, Kind: PlaceholderOther}
	if rest, ok := strings.CutPrefix(expr, "attachments"); ok && strings.HasPrefix(strings.TrimLeft(rest, " "), "[") {
		p.Kind = PlaceholderAttachment
		p.Selector, p.Invalid = parseSelector(strings.TrimLeft(rest, " ")[1:])
		return p
	}
	base := expr
	if i := strings.IndexByte(base, '|'); i >= 0 {
		base = strings.TrimSpace(base[:i])
	}
	switch base {
	case "input", "agent.input":
		p.Kind = PlaceholderInput
	case "attachments", "agent.attachments":
		p.Kind = PlaceholderAllAttachments
	default:
		if rest, ok := strings.CutPrefix(base, "step."); ok {
			if dot := strings.LastIndexByte(rest, '.'); dot > 0 {
				field := rest[dot+1:]
				if field == "input" || field == "output" {
					p.Kind, p.StepID, p.StepField = PlaceholderStep, rest[:dot], field
				}
			}
		}
	}
	return p
}

// parseSelector reads the selector after "attachments[" up to its closing
// bracket; s is the rest of the placeholder expression.
func parseSelector(s string) (Selector, string) {
	s = strings.TrimLeft(s, " ")
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s):
				i++
				b.WriteByte(s[i])
			case c == q:
				rest := strings.TrimLeft(s[i+1:], " ")
				if !strings.HasPrefix(rest, "]") {
					return Selector{}, "expected ] after the quoted name"
				}
				return valueSelector(b.String())
			default:
				b.WriteByte(c)
			}
		}
		return Selector{}, "unterminated quoted name"
	}
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				v := strings.TrimSpace(s[:i])
				if v == "" {
					return Selector{}, "empty selector"
				}
				if isDigits(v) {
					n, err := strconv.Atoi(v)
					if err != nil || n > maxIndex {
						return Selector{}, "index larger than " + strconv.Itoa(maxIndex)
					}
					return Selector{Kind: SelectorIndex, Index: n}, ""
				}
				if v[0] == '-' && isDigits(v[1:]) {
					return Selector{}, "negative indexes are not supported"
				}
				return valueSelector(v)
			}
		}
	}
	return Selector{}, "missing ]"
}

func valueSelector(v string) (Selector, string) {
	if v == "" {
		return Selector{}, "empty file name"
	}
	if strings.ContainsAny(v, "*?[") {
		return Selector{Kind: SelectorPattern, Value: v}, ""
	}
	return Selector{Kind: SelectorName, Value: v}, ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// TemplateText is one template string of a step with its path.
type TemplateText struct {
	Path string
	Text string
}

// Templates returns the step's template strings in a stable order: its
// template fields, the `input` of its condition rules, every string inside
// free-form objects (headers, metadata, json_template) and inside fields
// this package does not know (a newer exporter's templates still count).
// Ids, enums, regular expressions and documentation are not templates.
func (s *Step) Templates(path string) []TemplateText {
	var out []TemplateText
	spec := specs[s.Type]
	keys := make([]string, 0, len(s.Config))
	for k := range s.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "purpose" {
			continue
		}
		p := fieldPath(path, k)
		val := s.Config[k]
		f, known := specField(spec, k)
		switch {
		case !known, f.Kind == KindObject, f.Kind == KindAny:
			collectStrings(val, p, "", &out)
		case f.Kind == KindTemplate, f.Kind == KindStringOrList:
			collectStrings(val, p, "", &out)
		case f.Kind == KindConditions:
			collectStrings(val, p, "input", &out)
		}
	}
	return out
}

func specField(spec *StepSpec, name string) (Field, bool) {
	if spec == nil {
		return Field{}, false
	}
	for _, f := range spec.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// collectStrings appends every string in v; when onlyKey is set, only
// strings held under that object key.
func collectStrings(v any, path, onlyKey string, out *[]TemplateText) {
	switch t := v.(type) {
	case string:
		if onlyKey == "" {
			*out = append(*out, TemplateText{Path: path, Text: t})
		}
	case []any:
		for i, e := range t {
			collectStrings(e, indexPath(path, i), onlyKey, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if onlyKey != "" && k == onlyKey {
				collectStrings(t[k], fieldPath(path, k), "", out)
				continue
			}
			collectStrings(t[k], fieldPath(path, k), onlyKey, out)
		}
	}
}

// checkTemplates warns about placeholders that cannot work: references to
// steps that do not exist and unreadable attachment selectors.
func (c *checker) checkTemplates() {
	c.def.Walk(c.opts.BasePath, func(v Visit) bool {
		for _, t := range v.Step.Templates(v.Path) {
			if at, ok := UnclosedPlaceholder(t.Text); ok {
				c.warnf(CodeUnclosedTemplate, t.Path, "%q opens a placeholder with {{ that is never closed with }}; it is sent as literal text", excerptAt(t.Text, at))
			}
			for _, ph := range ParsePlaceholders(t.Text) {
				switch {
				case ph.Kind == PlaceholderStep && !c.hasStep(ph.StepID):
					c.warnf(CodeUnknownStepRef, t.Path, "{{%s}} refers to step %q, which does not exist", ph.Expr, ph.StepID)
				case ph.Kind == PlaceholderAttachment && ph.Invalid != "":
					c.warnf(CodeInvalidSelector, t.Path, "{{%s}}: %s; the placeholder is ignored", ph.Expr, ph.Invalid)
				case strings.HasPrefix(ph.Expr, "secrets."):
					// Secrets resolve only where a step signs with them, never
					// into text a run could show.
					c.warnf(CodeSecretPlacement, t.Path, "{{%s}} is not replaced here: account secrets are only read by "+
						"credential fields (access_key_id and secret_access_key of write_aws_s3_object, headers of an mcp tool); the step will fail", ph.Expr)
				}
			}
		}
		return true
	})
}
