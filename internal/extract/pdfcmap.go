package extract

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// cmap is what a PDF character map says (PDF 32000-1 §9.7.5, §9.10.3;
// Adobe technical note 5411): how a string splits into character codes of
// one to four bytes (its code space ranges), and what each code means: the
// text it stands for (bfchar/bfrange, in a ToUnicode map) or the glyph it
// selects (cidchar/cidrange, in a composite font's encoding map). Ranges
// are kept as ranges, so a map that declares a million codes in one line
// costs one entry.
type cmap struct {
	spaces    []codeSpace
	uni       map[uint64]string // code (with its length, see codeKey) → text
	uniRanges []uniRange        // sorted by key of lo
	cids      map[uint64]uint32
	cidRanges []cidRange
	entries   int // charged against maxCMapEntries
}

type codeSpace struct {
	n      int // bytes
	lo, hi uint32
}

type uniRange struct {
	lo, hi uint64 // keys
	base   []uint16
	each   []string // an array destination: one text per code
}

type cidRange struct {
	lo, hi uint64
	cid    uint32
}

// maxCMapEntries bounds the entries (single codes, ranges, array items) of
// one character map: real ones have some thousands.
const maxCMapEntries = 200_000

// codeKey joins a code and its length: <00 41> and <41> are different
// codes.
func codeKey(code uint32, n int) uint64 { return uint64(n)<<32 | uint64(code) }

var errCMapTooLarge = errors.New("the character map has too many entries")

// parseCMap reads a character map. A malformed one is read as far as it
// makes sense: a damaged map in a file otherwise fine should not cost the
// file its text. Only a map past maxCMapEntries is an error.
func parseCMap(data []byte) (*cmap, error) {
	m := &cmap{uni: map[uint64]string{}, cids: map[uint64]uint32{}}
	t := psTokens{b: data}
	// The operands since the last operator, bounded: a section holds at
	// most 100 entries by the specification, and a damaged map's stray
	// operands are dropped once past the bound.
	var ops []psToken
	for {
		tok, ok := t.next()
		if !ok {
			break
		}
		if tok.kind != 'k' {
			if len(ops) >= 3*512 {
				ops = ops[:0]
			}
			ops = append(ops, tok)
			continue
		}
		var err error
		switch string(tok.b) {
		case "endcodespacerange":
			for i := 0; i+1 < len(ops); i += 2 {
				lo, hi := ops[i], ops[i+1]
				if lo.kind == 's' && hi.kind == 's' && len(lo.b) == len(hi.b) && len(lo.b) >= 1 && len(lo.b) <= 4 {
					m.spaces = append(m.spaces, codeSpace{n: len(lo.b), lo: beUint(lo.b), hi: beUint(hi.b)})
					err = m.charge(1)
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(ops) && err == nil; i += 2 {
				src, dst := ops[i], ops[i+1]
				if src.kind != 's' || len(src.b) < 1 || len(src.b) > 4 {
					continue
				}
				k := codeKey(beUint(src.b), len(src.b))
				switch dst.kind {
				case 's':
					m.uni[k] = utf16Text(dst.b)
				case '/':
					m.uni[k] = glyphText(string(dst.b))
				}
				err = m.charge(1)
			}
		case "endbfrange":
			for i := 0; i+2 < len(ops) && err == nil; i += 3 {
				lo, hi, dst := ops[i], ops[i+1], ops[i+2]
				if lo.kind != 's' || hi.kind != 's' || len(lo.b) != len(hi.b) || len(lo.b) < 1 || len(lo.b) > 4 {
					continue
				}
				r := uniRange{lo: codeKey(beUint(lo.b), len(lo.b)), hi: codeKey(beUint(hi.b), len(hi.b))}
				if r.hi < r.lo {
					continue
				}
				switch dst.kind {
				case 's':
					r.base = utf16Units(dst.b)
					err = m.charge(1)
				case 'a':
					for _, s := range dst.items {
						r.each = append(r.each, utf16Text(s))
					}
					err = m.charge(1 + len(r.each))
				default:
					continue
				}
				m.uniRanges = append(m.uniRanges, r)
			}
		case "endcidchar":
			for i := 0; i+1 < len(ops) && err == nil; i += 2 {
				src, dst := ops[i], ops[i+1]
				if src.kind == 's' && len(src.b) >= 1 && len(src.b) <= 4 && dst.kind == 'i' {
					m.cids[codeKey(beUint(src.b), len(src.b))] = uint32(dst.n)
					err = m.charge(1)
				}
			}
		case "endcidrange":
			for i := 0; i+2 < len(ops) && err == nil; i += 3 {
				lo, hi, dst := ops[i], ops[i+1], ops[i+2]
				if lo.kind == 's' && hi.kind == 's' && len(lo.b) == len(hi.b) && len(lo.b) >= 1 && len(lo.b) <= 4 && dst.kind == 'i' {
					r := cidRange{lo: codeKey(beUint(lo.b), len(lo.b)), hi: codeKey(beUint(hi.b), len(hi.b)), cid: uint32(dst.n)}
					if r.hi >= r.lo {
						m.cidRanges = append(m.cidRanges, r)
						err = m.charge(1)
					}
				}
			}
		}
		if err != nil {
			return nil, err
		}
		ops = ops[:0]
	}
	sort.Slice(m.uniRanges, func(i, j int) bool { return m.uniRanges[i].lo < m.uniRanges[j].lo })
	sort.Slice(m.cidRanges, func(i, j int) bool { return m.cidRanges[i].lo < m.cidRanges[j].lo })
	return m, nil
}

func (m *cmap) charge(n int) error {
	if m.entries += n; m.entries > maxCMapEntries {
		return errCMapTooLarge
	}
	return nil
}

// text returns what a code stands for, if the map says.
func (m *cmap) text(code uint32, n int) (string, bool) {
	k := codeKey(code, n)
	if s, ok := m.uni[k]; ok {
		return s, true
	}
	// The last range starting at or before k; ranges may overlap, and
	// a later, narrower one is usually the more precise, so look back a
	// few.
	i := sort.Search(len(m.uniRanges), func(i int) bool { return m.uniRanges[i].lo > k })
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		r := m.uniRanges[j]
		if k > r.hi {
			continue
		}
		off := k - r.lo
		if r.each != nil {
			if off < uint64(len(r.each)) {
				return r.each[off], true
			}
			return "", false
		}
		if len(r.base) == 0 {
			return "", true
		}
		// The last UTF-16 unit counts up through the range.
		u := append([]uint16(nil), r.base...)
		u[len(u)-1] += uint16(off)
		return string(utf16.Decode(u)), true
	}
	return "", false
}

// cid returns the glyph a code selects in a composite font's encoding.
func (m *cmap) cid(code uint32, n int) (uint32, bool) {
	k := codeKey(code, n)
	if c, ok := m.cids[k]; ok {
		return c, true
	}
	i := sort.Search(len(m.cidRanges), func(i int) bool { return m.cidRanges[i].lo > k })
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		if r := m.cidRanges[j]; k <= r.hi {
			return r.cid + uint32(k-r.lo), true
		}
	}
	return 0, false
}

// codeLen returns the length of the code at the start of s, by the code
// space ranges: the shortest range that matches. A string that matches
// none takes the length of the shortest range whose first byte fits, as
// readers do, so that one bad code does not derail the rest.
func (m *cmap) codeLen(s []byte) int {
	if len(m.spaces) == 0 {
		return min(2, len(s))
	}
	for n := 1; n <= 4 && n <= len(s); n++ {
		c := beUint(s[:n])
		for _, sp := range m.spaces {
			if sp.n == n && c >= sp.lo && c <= sp.hi {
				return n
			}
		}
	}
	best := 0
	for _, sp := range m.spaces {
		if sp.n <= len(s) && s[0] >= byte(sp.lo>>(8*(sp.n-1))) && s[0] <= byte(sp.hi>>(8*(sp.n-1))) && (best == 0 || sp.n < best) {
			best = sp.n
		}
	}
	if best == 0 {
		return 1
	}
	return best
}

func beUint(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

// utf16Units reads UTF-16BE; an odd trailing byte is dropped.
func utf16Units(b []byte) []uint16 {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return u
}

// utf16Text decodes a ToUnicode destination: UTF-16BE, or, from producers
// that write a single byte, that byte as Latin-1.
func utf16Text(b []byte) string {
	if len(b) == 1 {
		return string(rune(b[0]))
	}
	return string(utf16.Decode(utf16Units(b)))
}

// psTokens splits PostScript-like text (character maps, Type 1 font
// headers) into tokens: strings ('s', hex or literal, their bytes),
// names ('/'), integers ('i'), other numbers and words ('k'), and arrays
// of strings ('a', one level; other items are dropped). Dictionaries'
// brackets and procedures' braces are skipped.
type psTokens struct {
	b []byte
	i int
}

type psToken struct {
	kind  byte
	b     []byte
	n     int64
	items [][]byte
}

func (t *psTokens) next() (psToken, bool) {
	for t.i < len(t.b) {
		c := t.b[t.i]
		switch {
		case isContentSpace(c):
			t.i++
		case c == '%':
			for t.i < len(t.b) && t.b[t.i] != '\n' && t.b[t.i] != '\r' {
				t.i++
			}
		case c == '<' && t.i+1 < len(t.b) && t.b[t.i+1] == '<', c == '>' && t.i+1 < len(t.b) && t.b[t.i+1] == '>':
			t.i += 2
		case c == '<':
			t.i++
			return psToken{kind: 's', b: t.hex()}, true
		case c == '(':
			t.i++
			return psToken{kind: 's', b: t.literal()}, true
		case c == '[':
			t.i++
			tok := psToken{kind: 'a'}
			for len(tok.items) < maxCMapEntries {
				item, ok := t.next()
				if !ok || item.kind == ']' {
					break
				}
				if item.kind == 's' {
					tok.items = append(tok.items, item.b)
				}
			}
			return tok, true
		case c == ']':
			t.i++
			return psToken{kind: ']'}, true
		case c == '/':
			t.i++
			return psToken{kind: '/', b: t.regular()}, true
		case isContentDelim(c): // ) { } >
			t.i++
		default:
			w := t.regular()
			if n, err := strconv.ParseInt(string(w), 10, 64); err == nil {
				return psToken{kind: 'i', b: w, n: n}, true
			}
			return psToken{kind: 'k', b: w}, true
		}
	}
	return psToken{}, false
}

func (t *psTokens) regular() []byte {
	start := t.i
	for t.i < len(t.b) && !isContentSpace(t.b[t.i]) && !isContentDelim(t.b[t.i]) {
		t.i++
	}
	return t.b[start:t.i]
}

func (t *psTokens) hex() []byte {
	var out []byte
	var hi byte
	half := false
	for t.i < len(t.b) {
		c := t.b[t.i]
		t.i++
		if c == '>' {
			break
		}
		if v, ok := hexDigit(c); ok {
			if half {
				out = append(out, hi<<4|v)
			} else {
				hi = v
			}
			half = !half
		}
	}
	if half {
		out = append(out, hi<<4)
	}
	return out
}

// literal reads a (string) after its parenthesis, with the escapes of
// content streams.
func (t *psTokens) literal() []byte {
	var out []byte
	depth := 1
	for t.i < len(t.b) {
		c := t.b[t.i]
		t.i++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return out
			}
		case '\\':
			if t.i >= len(t.b) {
				return out
			}
			c = t.b[t.i]
			t.i++
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\n', '\r':
				continue
			default:
				if c >= '0' && c <= '7' {
					v := c - '0'
					for k := 0; k < 2 && t.i < len(t.b) && t.b[t.i] >= '0' && t.b[t.i] <= '7'; k++ {
						v = v<<3 | (t.b[t.i] - '0')
						t.i++
					}
					c = v
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// validText cleans a decoded text: white-space controls (a map that says
// a glyph is a tab or a line feed) become spaces, which end a word; other
// controls and invalid UTF-8 are dropped.
func validText(s string) string {
	ok := true
	for _, r := range s {
		if r < 0x20 || r == utf8.RuneError || r >= 0x7f && r < 0xa0 {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			b.WriteByte(' ')
		case r >= 0x20 && r != utf8.RuneError && !(r >= 0x7f && r < 0xa0):
			b.WriteRune(r)
		}
	}
	return b.String()
}
