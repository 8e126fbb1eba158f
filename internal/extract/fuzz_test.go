package extract

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/extract/extracttest"
)

// FuzzExtract feeds arbitrary bytes to every extractor: none may panic or
// hang, and whatever text comes out is valid UTF-8.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("plain"), uint8(0))
	f.Add([]byte(`{"a":[1,{"b":null}]}`), uint8(3))
	f.Add([]byte("<p>x<script>y</script></p>"), uint8(4))
	f.Add(extracttest.PDF("seed"), uint8(5))
	f.Add(extracttest.DOCXWithXML(`<w:document><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`), uint8(6))
	types := Supported()
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		mt := types[int(which)%len(types)]
		var out bytes.Buffer
		r := bytes.NewReader(data)
		_, _ = Extract(context.Background(), mt, Source{R: r, RA: r, Size: int64(len(data))}, &out)
		if !utf8.Valid(out.Bytes()) {
			t.Fatalf("%s: output is not UTF-8: %q", mt, out.Bytes())
		}
	})
}

// FuzzPDFContent feeds arbitrary bytes to the content stream scanner, as
// the content of a page: it may not panic, loop, or write invalid UTF-8,
// and within small limits it stays within them.
func FuzzPDFContent(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf (Hello \\(x\\) \\101) Tj [(a) -2 (b)] TJ T* <4869> Tj ET"))
	f.Add([]byte("BI /W 1 /H 1 ID \x00\xff EI <</A [(x)]>> BDC [[[[(deep)]]]] TJ % c\n(a) ' 1 2 (b) \""))
	f.Add([]byte("((((\\"))
	f.Fuzz(func(t *testing.T, content []byte) {
		file := extracttest.PDFWithContent(content, "")
		var out bytes.Buffer
		r := bytes.NewReader(file)
		_, err := Limits{MaxDecompressedBytes: 4 << 10, MaxTextBytes: 1 << 10}.Extract(context.Background(), "application/pdf", Source{R: r, RA: r, Size: int64(len(file))}, &out)
		if !utf8.Valid(out.Bytes()) || out.Len() > 1<<10 {
			t.Fatalf("output %q (%v)", out.Bytes(), err)
		}
		if err != nil && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}

// FuzzJSON checks the JSON extractor on arbitrary bytes within small
// limits: valid JSON comes out as it went in, anything else is refused
// with a reason, and the limits hold.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":null}]}`))
	f.Add([]byte("[[[[[[[[[[[[[[[[[[[[[["))
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		r := bytes.NewReader(data)
		_, err := Limits{MaxDepth: 8, MaxTextBytes: 512}.Extract(context.Background(), "application/json", Source{R: r}, &out)
		if out.Len() > 512 || !utf8.Valid(out.Bytes()) {
			t.Fatalf("output %q", out.Bytes())
		}
		switch {
		case err == nil:
			if utf8.Valid(data) && !bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) && !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("valid JSON changed: %q -> %q", data, out.Bytes())
			}
		case !errors.Is(err, ErrLimit) && !errors.Is(err, ErrMalformed):
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}
