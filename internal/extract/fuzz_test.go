package extract

import (
	"bytes"
	"context"
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
