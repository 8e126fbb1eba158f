package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func checkPieces(t *testing.T, text string, o Options, ps []Piece) {
	t.Helper()
	runes := []rune(text)
	if !utf8.ValidString(text) {
		return
	}
	for _, p := range ps {
		if n := utf8.RuneCountInString(p.Text); n > o.Size || n == 0 {
			t.Fatalf("piece of %d runes (size %d): %q", n, o.Size, p.Text)
		}
		if p.Start < 0 || p.End > len(runes) || string(runes[p.Start:p.End]) != p.Text {
			t.Fatalf("piece %q does not sit at [%d,%d)", p.Text, p.Start, p.End)
		}
	}
	// Every non-space character is in some piece.
	covered := make([]bool, len(runes))
	for _, p := range ps {
		for i := p.Start; i < p.End; i++ {
			covered[i] = true
		}
	}
	for i, r := range runes {
		if !covered[i] && !strings.ContainsRune(" \t\r\n\v\f\u00a0\u0085\u2028\u2029", r) && !isSpace(r) {
			t.Fatalf("rune %d (%q) is in no piece", i, r)
		}
	}
}

func isSpace(r rune) bool { return strings.TrimSpace(string(r)) == "" }

func TestSplitParagraphsWithOverlap(t *testing.T) {
	text := strings.Repeat("Alpha beta gamma delta. ", 20) + "\n\n" + strings.Repeat("Epsilon zeta eta theta. ", 20)
	o := Options{Size: 120, Overlap: 30}
	ps, err := Split(text, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 8 {
		t.Fatalf("%d pieces", len(ps))
	}
	checkPieces(t, text, o, ps)
	for i := 1; i < len(ps); i++ {
		if ps[i].Start >= ps[i-1].End {
			t.Errorf("piece %d does not overlap the previous (%d >= %d)", i, ps[i].Start, ps[i-1].End)
		}
		if ps[i].Start <= ps[i-1].Start {
			t.Fatalf("no progress at piece %d", i)
		}
	}
	// The paragraph break is a boundary: no piece spans both paragraphs.
	for _, p := range ps {
		if strings.Contains(p.Text, "delta") && strings.Contains(p.Text, "Epsilon") && len(p.Text) > 100 {
			t.Errorf("piece crosses the paragraph: %q", p.Text)
		}
	}
}

func TestSplitMarkdownHeadingsStartPieces(t *testing.T) {
	text := "# One\n" + strings.Repeat("word ", 30) + "\n## Two\n" + strings.Repeat("more ", 30)
	ps, err := Split(text, Options{Size: 200, Language: "markdown"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || !strings.HasPrefix(ps[1].Text, "## Two") {
		t.Fatalf("pieces: %+v", ps)
	}
}

func TestSplitRegexSeparatorsAndHardCuts(t *testing.T) {
	text := "a1|b22|c333|" + strings.Repeat("x", 50)
	o := Options{Size: 10, Separators: []string{`\|`}, Regex: true}
	ps, err := Split(text, o)
	if err != nil {
		t.Fatal(err)
	}
	checkPieces(t, text, o, ps)
	if ps[0].Text != "a1|b22|" {
		t.Errorf("first piece %q", ps[0].Text)
	}
	for _, bad := range []Options{{Size: 0}, {Size: 10, Overlap: 10}, {Size: 10, Separators: []string{"("}, Regex: true},
		{Size: 10, Separators: []string{"a*"}, Regex: true}, {Size: 10, Language: "klingon"}} {
		if _, err := Split("x", bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Hello world. This is a test.\n\nNew paragraph here.", 10, 3, "", false)
	f.Add("## a\ncode\n```go\nfunc x() {}\n```", 7, 2, "", false)
	f.Add("ünïcödé 日本語のテキスト", 3, 1, "", false)
	f.Add("a,b;c", 2, 0, "[,;]", true)
	f.Fuzz(func(t *testing.T, text string, size, overlap int, sep string, regex bool) {
		if len(text) > 1<<14 {
			return
		}
		o := Options{Size: size%500 + 1, Overlap: overlap}
		if o.Overlap < 0 || o.Overlap >= o.Size {
			o.Overlap = 0
		}
		if sep != "" {
			o.Separators, o.Regex = []string{sep}, regex
		}
		ps, err := Split(text, o)
		if err != nil {
			return
		}
		checkPieces(t, text, o, ps)
	})
}
