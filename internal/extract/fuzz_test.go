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
	f.Add([]byte("q 2 0 0 2 0 0 cm BT /F1 10 Tf 12 TL 0 1 -1 0 300 100 Tm [(up) -300 (wards)] TJ T* 0.5 Tc 4 Tw 150 Tz 3 Ts (a b) ' 1 0 0 1 72 700 Tm (manip-) Tj 0 -12 TD (ulation) Tj ET Q /X1 Do Q Q Q"))
	f.Add([]byte("BT /F1 1e308 Tf 99999999999 0 0 99999999999 0 0 Tm (overflow) Tj -0 --5 Td 1.2.3 Tc (x) Tj ET"))
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

// FuzzCMap feeds arbitrary bytes to the character map parser, and the
// map it makes to its look-ups: no panic, no runaway, and text that is
// valid UTF-8 once cleaned as glyphs' text is.
func FuzzCMap(f *testing.F) {
	f.Add([]byte("1 begincodespacerange <0000> <FFFF> endcodespacerange\n2 beginbfrange <0001> <0003> <0041> <0010> <0011> [<FB01> <0066006C>] endbfrange\n1 beginbfchar <20> /space endbfchar"))
	f.Add([]byte("2 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange 1 begincidrange <8140> <817F> 100 endcidrange 1 begincidchar <20> 3 endcidchar"))
	f.Add([]byte("1 beginbfrange <FFFFFFFF> <00000000> <D800> endbfrange 1 beginbfrange <00> <FF> <FFFF> endbfrange ((( [[[ <<"))
	f.Add([]byte("%!PS-AdobeFont-1.0\n/Encoding 256 array\ndup 65 /B put dup 300 /x put dup 66 /f_f_i put\nreadonly def currentfile eexec"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if e := type1Encoding(data); e != nil {
			for _, s := range e {
				if !utf8.ValidString(s) {
					t.Fatalf("encoding text %q", s)
				}
			}
		}
		m, err := parseCMap(data)
		if err != nil {
			return
		}
		for i := 0; i+1 <= len(data) && i < 64; i++ {
			n := m.codeLen(data[i:])
			if n < 1 || n > 4 || n > len(data)-i {
				t.Fatalf("code length %d at %d of %d", n, i, len(data))
			}
			code := beUint(data[i : i+n])
			s, _ := m.text(code, n)
			if g := expandLigatures(validText(s)); !utf8.ValidString(g) {
				t.Fatalf("text %q", g)
			}
			m.cid(code, n)
		}
	})
}

// FuzzPDFLayout places arbitrary glyphs (text, places, sizes, directions
// from the input) on a page and lays it out within a small text limit:
// no panic, no runaway, valid UTF-8 within the limit.
func FuzzPDFLayout(f *testing.F) {
	f.Add([]byte("\x00\x10\x20\x05\x0aab\x00\x30\x20\x05\x0acd\x40\x10\x10\x05\x0aef"))
	f.Add([]byte("\xff\xff\xff\xff\xffx-\x00\x00\x00\x00\x00y"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		tw := newTextWriter(context.Background(), &out, 4<<10)
		pw := &pageWriter{w: tw}
		p := &pageLayout{out: pw, maxText: 4<<10 + 1}
		for len(data) >= 7 {
			x, y := float64(int8(data[0]))*4, float64(int8(data[1]))*4
			adv, size := float64(int8(data[2])), float64(data[3]%40)+0.5
			dx, dy := float64(int8(data[4]&0xf0)), float64(int8(data[4]<<4))
			text := string(data[5:7])
			data = data[7:]
			p.add(text, x, y, x+adv*dx/16, y+adv*dy/16, size, dx, dy)
			if len(data)%5 == 0 {
				p.add(" ", 0, 0, 0, 0, 1, 1, 0) // a space glyph ends the word
			}
		}
		p.flush()
		tw.Flush()
		if out.Len() > 4<<10 || !utf8.Valid(out.Bytes()) && pw.err == nil {
			t.Fatalf("output %q (%v)", out.Bytes(), pw.err)
		}
	})
}
