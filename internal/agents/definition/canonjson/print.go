package canonjson

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a 1-based line and column. Columns count Unicode code points, not
// bytes, so that an editor showing the text puts the caret on the value.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Positions maps the path of every value in a canonical text to the position of
// the value's first character.
type Positions map[string]Pos

// Lookup returns the position of path, or of its nearest ancestor present in
// the index when path itself is absent (a missing required field points at
// the object that should have held it). found is the path actually used.
func (ix Positions) Lookup(path string) (pos Pos, found string) {
	p := path
	for {
		if pos, ok := ix[p]; ok {
			return pos, p
		}
		parent, ok := Parent(p)
		if !ok {
			break
		}
		p = parent
	}
	return ix[""], ""
}

// Print renders v (a tree of map[string]any, []any, string, json.Number,
// bool, nil and Go numbers) as canonical JSON: object keys sorted by bytes,
// two-space indentation, ": " after keys, empty containers as {} and [], no
// trailing newline, no HTML escaping. The same tree always yields the same
// text. Values of other Go types are first passed through encoding/json.
func Print(v any) (string, Positions) {
	p := printer{line: 1, col: 1, index: Positions{}}
	p.value(v, "", 0)
	return p.b.String(), p.index
}

type printer struct {
	b         strings.Builder
	line, col int
	index     Positions
}

func (p *printer) write(s string) {
	p.b.WriteString(s)
	for _, r := range s {
		if r == '\n' {
			p.line++
			p.col = 1
		} else {
			p.col++
		}
	}
}

func (p *printer) newline(depth int) {
	p.write("\n")
	p.write(strings.Repeat("  ", depth))
}

func (p *printer) value(v any, path string, depth int) {
	p.index[path] = Pos{Line: p.line, Column: p.col}
	switch t := v.(type) {
	case nil:
		p.write("null")
	case bool:
		p.write(strconv.FormatBool(t))
	case string:
		var b strings.Builder
		writeString(&b, t)
		p.write(b.String())
	case json.Number:
		if t == "" {
			p.write("0")
		} else {
			p.write(string(t))
		}
	case int:
		p.write(strconv.Itoa(t))
	case int64:
		p.write(strconv.FormatInt(t, 10))
	case float64:
		p.write(formatFloat(t))
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			p.write("{}")
			return
		}
		p.write("{")
		for i, k := range keys {
			if i > 0 {
				p.write(",")
			}
			p.newline(depth + 1)
			var b strings.Builder
			writeString(&b, k)
			p.write(b.String())
			p.write(": ")
			p.value(t[k], Key(path, k), depth+1)
		}
		p.newline(depth)
		p.write("}")
	case []any:
		if len(t) == 0 {
			p.write("[]")
			return
		}
		p.write("[")
		for i, e := range t {
			if i > 0 {
				p.write(",")
			}
			p.newline(depth + 1)
			p.value(e, Index(path, i), depth+1)
		}
		p.newline(depth)
		p.write("]")
	default:
		// Typed Go values (structs, []string, …): go through their JSON form
		// so the canonical text is what a client would have sent.
		b, err := json.Marshal(t)
		if err != nil {
			p.write("null")
			return
		}
		g, _, err := Parse(b)
		if err != nil {
			p.write("null")
			return
		}
		p.value(g, path, depth)
	}
}

func formatFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	b, _ := json.Marshal(f)
	return string(b)
}

// writeString writes s as a JSON string literal. Unlike encoding/json it
// leaves <, > and & alone (the echo is shown to people, not embedded in
// HTML) and it is also the quoting used inside paths.
func writeString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '\u2028', r == '\u2029':
			// Line separators would break the line count of editors that
			// treat them as newlines.
			b.WriteString(`\u202`)
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}
