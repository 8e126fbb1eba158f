package extract

import (
	"fmt"
	"strings"
	"testing"
)

// fontWith500 is a simple font whose glyphs are all 500/1000 wide, so the
// tests can place text exactly: at 10 points, a glyph is 5 wide.
func fontWith500(encoding string) string {
	return fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Test /FirstChar 0 /LastChar 255 /Widths [%s] %s >>",
		strings.TrimSpace(strings.Repeat("500 ", 256)), encoding)
}

// onePage builds a PDF of one page with content, the font F1, and further
// objects from number 6 on.
func onePage(content, font string, more ...string) []byte {
	return pdfOf(append([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /X1 6 0 R >> >> /Contents 5 0 R >>",
		font,
		streamObj(content),
	}, more...)...)
}

// Each case places text the way a tool chain does, with no space
// characters where the layout says a word ends; today's reading of the
// content stream in order glues such words together.
func TestPDFLayout(t *testing.T) {
	winAnsi := fontWith500("/Encoding /WinAnsiEncoding")
	for _, tc := range []struct {
		name, content, font, want string
		more                      []string
	}{
		{"TJ offsets: a word space, kerns inside a word", "BT /F1 10 Tf 72 700 Td [(Hello) -300 (wor) 20 (ld) -250 (again)] TJ ET", winAnsi, "Hello world again", nil},
		{"text-matrix moves between words", "BT /F1 10 Tf 72 700 Td (one) Tj 18 0 Td (two) Tj 18 0 Td (three) Tj 1 0 0 1 100 650 Tm (split) Tj 25 0 Td (ted) Tj ET", winAnsi, "one two three\n\nsplitted", nil},
		{"character and word spacing", "BT /F1 10 Tf 0.5 Tc 72 700 Td (letter) Tj 0 Tc 4 Tw 0 -14 Td (a b) Tj 0 Tw 3 Tc 0 -14 Td (wide) Tj ET", winAnsi, "letter\na b\nw i d e", nil},
		{"horizontal scaling widens the advance", "BT /F1 10 Tf 200 Tz 72 700 Td (ab) Tj 21 0 Td (cd) Tj ET", winAnsi, "abcd", nil},
		{"line breaks from vertical moves", "BT /F1 10 Tf 12 TL 72 700 Td (first) Tj T* (second) Tj 0 -12 Td (third) Tj (fourth) ' ET", winAnsi, "first\nsecond\nthird\nfourth", nil},
		{"reading order by position, not by stream", "BT /F1 10 Tf 72 688 Td (bottom) Tj 0 12 Td (top) Tj -30 -12 Td (left) Tj ET", winAnsi, "top\nleft bottom", nil},
		{"two columns, drawn line by line across", "BT /F1 10 Tf 12 TL 72 700 Td (L1) Tj 250 0 Td (R1) Tj -250 -12 Td (L2) Tj 250 0 Td (R2) Tj -250 -12 Td (L3) Tj 250 0 Td (R3) Tj ET", winAnsi, "L1\nL2\nL3\nR1\nR2\nR3", nil},
		{"paragraphs apart", "BT /F1 10 Tf 72 700 Td (one) Tj 0 -30 Td (two) Tj ET", winAnsi, "one\n\ntwo", nil},
		{"a hyphenated word joined", "BT /F1 10 Tf 72 700 Td (manip-) Tj 0 -12 Td (ulation works, soft\255) Tj 0 -12 Td (ly; 1-) Tj 0 -12 Td (2) Tj ET", winAnsi, "manipulation works, softly; 1-\n2", nil},
		{"superscripts stay on their line", "BT /F1 10 Tf 72 700 Td (x) Tj 5 3 Td 7 Tf (2) Tj 10 Tf 6 -3 Td (term) Tj ET", winAnsi, "x2 term", nil},
		{"text drawn twice to look bold, read once", "BT /F1 10 Tf 72 700 Td (Bold) Tj 0.4 0 Td (Bold) Tj ET", winAnsi, "Bold", nil},
		{"rotated text, along its baseline", "BT /F1 10 Tf 0 1 -1 0 300 100 Tm [(read) -300 (upwards)] TJ ET", winAnsi, "read upwards", nil},
		{"a transformed page (cm)", "q 2 0 0 2 0 0 cm BT /F1 10 Tf 36 350 Td (big) Tj 25 0 Td (text) Tj ET Q", winAnsi, "big text", nil},
		{"a form XObject with its own font", "q 1 0 0 1 50 50 cm /X1 Do Q BT /F1 10 Tf 72 600 Td (page) Tj ET", winAnsi, "in form\n\npage",
			[]string{formObj("/Resources << /Font << /G 7 0 R >> >>", "BT /G 10 Tf 22 650 Td (in form) Tj ET"),
				fontWith500("/Encoding /WinAnsiEncoding")}},
		{"Differences: ligatures and quotes by glyph name", "BT /F1 10 Tf 72 700 Td (\\001nd \\002ow e\\003cient \\004\\005ne it\\006s) Tj ET",
			fontWith500("/Encoding << /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl /ffi /f_f /uni0069 /quoteright] >>"), "find flow efficient ffine it’s", nil},
		{"StandardEncoding's quotes and ligatures", "BT /F1 10 Tf 72 700 Td (\\140quoted\\047 \\256nd) Tj ET", fontWith500("/Encoding /StandardEncoding"), "‘quoted’ find", nil},
		{"a Type 1 font's built-in encoding", "BT /F1 10 Tf 72 700 Td (AB) Tj ET",
			fontWith500("/FontDescriptor 6 0 R"), "BA",
			[]string{"<< /Type /FontDescriptor /FontName /Test /FontFile 7 0 R >>",
				streamObj("%!PS-AdobeFont-1.0: Test 001\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 65 /B put\ndup 66 /A put\nreadonly def\ncurrentfile eexec\n\x8f\x00garbage")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := run(t, "application/pdf", onePage(tc.content, tc.font, tc.more...))
			if err != nil || got != tc.want {
				t.Fatalf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

// A composite font (two-byte codes, widths per CID) decoded through its
// ToUnicode map: ranges with a string (counting up) or an array of
// destinations, ligature characters written as letters.
func TestPDFCompositeFont(t *testing.T) {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		"2 beginbfrange <0001> <0003> <0041> <0010> <0011> [<FB01> <0066006C>] endbfrange\n" +
		"1 beginbfchar <0020> <0020> endbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end"
	font := "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 7 0 R /DescendantFonts [6 0 R] >>"
	cid := "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 /W [1 [600 600] 3 3 700 16 17 550] >>"
	// ABC, then a word space made by a TJ offset, then "fi" "fl" "A",
	// then a space glyph and C.
	content := "BT /F1 10 Tf 72 700 Td [<000100020003> -400 <001000110001>] TJ <00200003> Tj ET"
	got, _, err := run(t, "application/pdf", onePage(content, font, cid, streamObj(cmap)))
	if err != nil || got != "ABC fiflA C" {
		t.Fatalf("got %q (%v)", got, err)
	}
}

func TestParseCMap(t *testing.T) {
	m, err := parseCMap([]byte("2 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange\n" +
		"2 beginbfchar <41> <0042> <8141> /fi endbfchar\n" +
		"1 beginbfrange <8150> <8152> <D835DC00> endbfrange\n" +
		"1 begincidrange <8140> <817F> 100 endcidrange 1 begincidchar <20> 3 endcidchar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code uint32
		n    int
		want string
	}{{0x41, 1, "B"}, {0x8141, 2, "fi"}, {0x8151, 2, "𝐁"}, {0x0041, 2, ""}} {
		if got, _ := m.text(tc.code, tc.n); got != tc.want {
			t.Errorf("%x/%d: %q, want %q", tc.code, tc.n, got, tc.want)
		}
	}
	if c, ok := m.cid(0x8142, 2); !ok || c != 102 {
		t.Errorf("cid %d %v", c, ok)
	}
	if c, ok := m.cid(0x20, 1); !ok || c != 3 {
		t.Errorf("cid %d %v", c, ok)
	}
	if n := m.codeLen([]byte{0x41, 0x81}); n != 1 {
		t.Errorf("codeLen %d", n)
	}
	if n := m.codeLen([]byte{0x81, 0x41}); n != 2 {
		t.Errorf("codeLen %d", n)
	}
	// A map declaring more entries than the bound is refused; one range
	// of a million codes is one entry.
	if _, err := parseCMap([]byte("1 beginbfrange <000000> <0FFFFF> <0041> endbfrange")); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("1 beginbfchar <01> <0041> endbfchar\n", maxCMapEntries+1)
	if _, err := parseCMap([]byte(big)); err == nil {
		t.Fatal("no error past the entry bound")
	}
}

func TestValidText(t *testing.T) {
	for in, want := range map[string]string{"a\tb": "a b", "x\x00y\x85": "xy", "ok é": "ok é", "\xffz": "z"} {
		if got := validText(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestGlyphText(t *testing.T) {
	for name, want := range map[string]string{
		"A": "A", "fi": "fi", "f_f_i": "ffi", "uni00E9": "é", "uni00660069": "fi", "u1F600": "😀",
		"eacute": "é", "quoteright": "’", "a.sc": "a", "uniFB01": "fi", "g123": "", "uniD800": "",
	} {
		if got := glyphText(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func formObj(dict, content string) string {
	return fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 500 500] %s /Length %d >>\nstream\n%s\nendstream", dict, len(content), content)
}
