// Package chunk splits extracted text into overlapping passages for
// indexing. It cuts at the most meaningful boundary available (sections,
// paragraphs, lines, sentences, words, in that order, or the caller's own
// separators, literal or regular expressions), so a passage holds whole
// thoughts where it can, and reports each passage's position in the text
// in characters.
package chunk

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a tenant may ask of the splitter.
const (
	MaxSize         = 100_000
	MaxSeparators   = 32
	MaxSeparatorLen = 200
	DefaultSize     = 1500
	DefaultOverlap  = 300
	maxRegexProgram = 2000
)

// Options configure a split. Size and Overlap count characters (runes).
type Options struct {
	Size, Overlap int
	// Separators override the language's (or the default) boundaries,
	// most meaningful first. Regex makes them RE2 regular expressions.
	Separators []string
	Regex      bool
	// Language picks boundaries for a kind of text: markdown, html,
	// python, go, javascript, typescript, java, rust, … ("" for prose).
	Language string
}

// Piece is one passage: Text is the text between rune offsets Start and End.
type Piece struct {
	Text       string
	Start, End int
}

var languageSeparators = map[string][]string{
	"":           {"\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " "},
	"markdown":   {"\n# ", "\n## ", "\n### ", "\n#### ", "\n```", "\n\n", "\n", ". ", " "},
	"html":       {"<h1", "<h2", "<h3", "<section", "<p", "<li", "<br", "\n\n", "\n", ". ", " "},
	"python":     {"\nclass ", "\ndef ", "\n    def ", "\n\n", "\n", " "},
	"go":         {"\nfunc ", "\ntype ", "\nvar ", "\nconst ", "\n\n", "\n", " "},
	"javascript": {"\nfunction ", "\nclass ", "\nconst ", "\nexport ", "\n\n", "\n", " "},
	"typescript": {"\nfunction ", "\nclass ", "\ninterface ", "\nconst ", "\nexport ", "\n\n", "\n", " "},
	"java":       {"\nclass ", "\npublic ", "\nprivate ", "\nprotected ", "\n\n", "\n", " "},
	"rust":       {"\nfn ", "\npub fn ", "\nimpl ", "\nstruct ", "\nenum ", "\n\n", "\n", " "},
}

// ErrOptions is wrapped by every refusal of Options.
var ErrOptions = errors.New("invalid chunking options")

// splitter is a validated configuration.
type splitter struct {
	size, overlap int
	lits          []string
	res           []*regexp.Regexp
}

// Check validates o, as New does, without splitting anything.
func (o Options) Check() error {
	_, err := newSplitter(o)
	return err
}

func newSplitter(o Options) (*splitter, error) {
	if o.Size <= 0 || o.Size > MaxSize {
		return nil, fmt.Errorf("%w: chunk size must be between 1 and %d characters", ErrOptions, MaxSize)
	}
	if o.Overlap < 0 || o.Overlap >= o.Size {
		return nil, fmt.Errorf("%w: chunk overlap must be at least 0 and less than the chunk size", ErrOptions)
	}
	if len(o.Separators) > MaxSeparators {
		return nil, fmt.Errorf("%w: at most %d separators", ErrOptions, MaxSeparators)
	}
	sp := &splitter{size: o.Size, overlap: o.Overlap}
	seps := o.Separators
	if len(seps) == 0 {
		l, ok := languageSeparators[strings.ToLower(o.Language)]
		if !ok {
			return nil, fmt.Errorf("%w: unknown chunk language %q", ErrOptions, o.Language)
		}
		seps, o.Regex = l, false
	}
	for _, s := range seps {
		if s == "" || len(s) > MaxSeparatorLen || !utf8.ValidString(s) {
			return nil, fmt.Errorf("%w: a separator must be 1 to %d bytes of UTF-8", ErrOptions, MaxSeparatorLen)
		}
		if !o.Regex {
			sp.lits = append(sp.lits, s)
			continue
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%w: separator %q is not a regular expression: %v", ErrOptions, s, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%w: separator %q matches the empty string", ErrOptions, s)
		}
		sp.res = append(sp.res, re)
	}
	return sp, nil
}

// Split cuts text into passages of at most o.Size characters, each
// starting about o.Overlap characters before the previous one ended.
// Whitespace-only passages are dropped; passages are trimmed.
func Split(text string, o Options) ([]Piece, error) {
	sp, err := newSplitter(o)
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	atoms := sp.atoms(text, 0, len(text), 0, nil)
	return sp.merge(text, atoms), nil
}

type span struct{ s, e, runes int }

func (sp *splitter) levels() int { return len(sp.lits) + len(sp.res) }

// cuts returns where separator level cuts text[s:e] (absolute byte
// offsets, each strictly inside the range).
func (sp *splitter) cuts(text string, s, e, level int) []int {
	var out []int
	seg := text[s:e]
	if level < len(sp.lits) {
		sep := sp.lits[level]
		// A separator that opens a block (a newline followed by a marker,
		// such as "\n## ") starts the next piece; others end the previous.
		before := len(sep) > 1 && sep[0] == '\n' && !unicode.IsSpace(rune(sep[1]))
		for i := 0; ; {
			j := strings.Index(seg[i:], sep)
			if j < 0 {
				break
			}
			at := i + j + len(sep)
			if before {
				at = i + j + 1
			}
			if at > 0 && at < len(seg) && utf8.RuneStart(seg[at]) {
				out = append(out, s+at)
			}
			i += j + len(sep)
		}
		return out
	}
	for _, m := range sp.res[level-len(sp.lits)].FindAllStringIndex(seg, -1) {
		// A pattern may match inside a character; only rune boundaries cut.
		if m[1] > 0 && m[1] < len(seg) && utf8.RuneStart(seg[m[1]]) {
			out = append(out, s+m[1])
		}
	}
	return out
}

// atoms splits text[s:e] into spans no longer than the size, at the most
// meaningful separators that occur, hard-cutting at rune boundaries last.
func (sp *splitter) atoms(text string, s, e, level int, out []span) []span {
	n := utf8.RuneCountInString(text[s:e])
	if n <= sp.size {
		return append(out, span{s, e, n})
	}
	for ; level < sp.levels(); level++ {
		cuts := sp.cuts(text, s, e, level)
		if len(cuts) == 0 {
			continue
		}
		prev := s
		for _, c := range append(cuts, e) {
			if c > prev {
				out = sp.atoms(text, prev, c, level+1, out)
				prev = c
			}
		}
		return out
	}
	// No separator helps: cut every size runes.
	start, count := s, 0
	for i := range text[s:e] {
		if count == sp.size {
			out = append(out, span{start, s + i, count})
			start, count = s+i, 0
		}
		count++
	}
	return append(out, span{start, e, count})
}

// merge packs consecutive atoms into passages of at most size runes, each
// next passage starting with the atoms of up to overlap runes before it.
func (sp *splitter) merge(text string, atoms []span) []Piece {
	var out []Piece
	runeAt := make([]int, len(atoms)+1) // rune offset of each atom's start
	for i, a := range atoms {
		runeAt[i+1] = runeAt[i] + a.runes
	}
	for i := 0; i < len(atoms); {
		j, n := i, 0
		for j < len(atoms) && n+atoms[j].runes <= sp.size {
			n += atoms[j].runes
			j++
		}
		if j == i { // cannot happen: atoms are at most size; guard anyway
			j = i + 1
		}
		if p, ok := trimmed(text, atoms[i].s, atoms[j-1].e, runeAt[i]); ok {
			out = append(out, p)
		}
		if j >= len(atoms) {
			break
		}
		// Step back over whole atoms worth at most overlap runes, always
		// moving forward.
		next, back := j, 0
		for next-1 > i && back+atoms[next-1].runes <= sp.overlap {
			back += atoms[next-1].runes
			next--
		}
		i = next
	}
	return out
}

func trimmed(text string, s, e, runeStart int) (Piece, bool) {
	seg := text[s:e]
	left := strings.TrimLeftFunc(seg, unicode.IsSpace)
	lead := utf8.RuneCountInString(seg[:len(seg)-len(left)])
	t := strings.TrimRightFunc(left, unicode.IsSpace)
	if t == "" {
		return Piece{}, false
	}
	start := runeStart + lead
	return Piece{Text: t, Start: start, End: start + utf8.RuneCountInString(t)}, true
}
