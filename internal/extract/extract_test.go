package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/extract/extracttest"
)

func run(t *testing.T, mediaType string, data []byte) (string, Result, error) {
	t.Helper()
	var out bytes.Buffer
	r := bytes.NewReader(data)
	res, err := Extract(context.Background(), mediaType, Source{R: r, RA: r, Size: int64(len(data))}, &out)
	return out.String(), res, err
}

func TestPlainFormats(t *testing.T) {
	for _, tc := range []struct {
		mt, in, want, extractor string
	}{
		{"text/plain; charset=utf-8", "hello\nworld", "hello\nworld", "plain"},
		{"text/markdown", "# Title\n\n*x*", "# Title\n\n*x*", "markdown"},
		{"text/csv", "a,b\n1,2\n", "a,b\n1,2\n", "csv"},
		{"text/plain", "\xef\xbb\xbfbom dropped", "bom dropped", "plain"},
		{"text/plain", "bad \xff byte", "bad \ufffd byte", "plain"},
		{"text/plain", "\xff\xfeh\x00i\x00", "hi", "plain"}, // UTF-16LE with BOM
		{"application/json", `{"a": [1, 2, "é"]}`, `{"a": [1, 2, "é"]}`, "json"},
		{"application/json", "{\"a\":1}\n{\"a\":2}\n", "{\"a\":1}\n{\"a\":2}\n", "json"},
	} {
		got, res, err := run(t, tc.mt, []byte(tc.in))
		if err != nil || got != tc.want || res.Extractor != tc.extractor || res.Chars != int64(utf8.RuneCountInString(tc.want)) {
			t.Errorf("%s %q: got %q %+v %v, want %q", tc.mt, tc.in, got, res, err, tc.want)
		}
	}
}

func TestMalformedJSON(t *testing.T) {
	for _, in := range []string{`{"a": `, `{"a" 1}`, `]`, "{\"a\":1}}"} {
		if _, _, err := run(t, "application/json", []byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v, want ErrMalformed", in, err)
		}
	}
}

func TestHTML(t *testing.T) {
	in := `<!doctype html><html><head><title>T</title><style>p{color:red}</style><script>alert("x")</script></head>
<body><h1>Heading</h1><p>One  <b>bold</b>word and
   more.</p><p>Two&amp;three</p><ul><li>a</li><li>b</li></ul><table><tr><td>x</td><td>y</td></tr></table>
<noscript>hidden</noscript>tail<br>line</body></html>`
	got, res, err := run(t, "text/html", []byte(in))
	if err != nil || res.Extractor != "html" {
		t.Fatal(res, err)
	}
	for _, want := range []string{"T\n", "Heading\n", "One boldword and more.", "Two&three", "a\n", "x y", "tail\nline"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	for _, bad := range []string{"alert", "color", "hidden", "<", "  "} {
		if strings.Contains(got, bad) {
			t.Errorf("%q should not be in %q", bad, got)
		}
	}
}

func TestDOCX(t *testing.T) {
	doc := extracttest.DOCXWithXML(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		`<w:p><w:r><w:t>Hello</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve"> world</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>Second</w:t><w:br/><w:t>line</w:t><w:delText>gone</w:delText></w:r></w:p></w:body></w:document>`)
	got, res, err := run(t, MediaDOCX, doc)
	if err != nil || res.Extractor != "docx" || got != "Hello\t world\nSecond\nline" {
		t.Fatalf("%q %+v %v", got, res, err)
	}
	if _, _, err := run(t, MediaDOCX, []byte("not a zip")); !errors.Is(err, ErrMalformed) {
		t.Fatalf("not a zip: %v", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.Create("other.xml")
	zw.Close()
	if _, _, err := run(t, MediaDOCX, buf.Bytes()); !errors.Is(err, ErrMalformed) {
		t.Fatalf("no document.xml: %v", err)
	}
}

func TestPDF(t *testing.T) {
	got, res, err := run(t, "application/pdf", extracttest.PDF("Hello PDF", "Page two"))
	if err != nil || res.Extractor != "pdf" || !strings.Contains(got, "Hello PDF") || !strings.Contains(got, "Page two") {
		t.Fatalf("%q %+v %v", got, res, err)
	}
	for _, bad := range [][]byte{[]byte("%PDF-1.4 garbage"), []byte("nothing"), extracttest.PDF("x")[:200]} {
		if _, _, err := run(t, "application/pdf", bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v, want ErrMalformed", bad[:min(20, len(bad))], err)
		}
	}
}

func TestPassthroughAndUnsupported(t *testing.T) {
	_, res, err := run(t, "image/png", []byte{0x89, 'P', 'N', 'G'})
	if err != nil || res.Extractor != "none" || !strings.Contains(res.Note, "image") {
		t.Fatalf("image: %+v %v", res, err)
	}
	_, _, err = run(t, "application/zip", []byte("PK"))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "application/pdf") {
		t.Fatalf("zip: %v", err)
	}
}

func TestSplitCharacters(t *testing.T) {
	// A character split across writes survives; one cut off at the end
	// becomes U+FFFD.
	var out bytes.Buffer
	w := newTextWriter(context.Background(), &out, 0)
	e := []byte("é")
	w.Write([]byte{'a', e[0]})
	w.Write([]byte{e[1], 'b', 0xe2})
	w.Flush()
	if out.String() != "aéb\ufffd" || w.chars != 4 {
		t.Fatalf("%q %d", out.String(), w.chars)
	}
}

func TestDetectType(t *testing.T) {
	for _, tc := range []struct{ name, declared, head, want string }{
		{"notes.TXT", "application/octet-stream", "", "text/plain"},
		{"r.pdf", "text/plain", "", "application/pdf"},
		{"blob", "application/pdf", "", "application/pdf"},
		{"blob", "application/octet-stream", "%PDF-1.7\n", "application/pdf"},
		{"blob", "", "plain words", "text/plain"},
		{"x.docx", "", "PK", MediaDOCX},
		{"song.mp3", "", "", "audio/mpeg"},
	} {
		if got := DetectType(tc.name, tc.declared, []byte(tc.head)); got != tc.want {
			t.Errorf("%s/%s: %s, want %s", tc.name, tc.declared, got, tc.want)
		}
	}
}
