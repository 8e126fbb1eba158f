package extract

import (
	"errors"
	"io"
	"sort"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfFont is what text extraction needs of a font (PDF 32000-1 §9): how
// its strings split into codes, what text each code stands for, and how
// far each glyph advances, which places the next one and so tells where
// words end.
type pdfFont struct {
	composite bool
	encoding  *cmap // a composite font's code → CID map; nil is Identity
	ucs2      bool  // a composite font whose codes are Unicode (Uni…-UCS2/UTF16 maps)
	toUnicode *cmap
	simple    *byteEncoding // a simple font's encoding, Differences applied

	// Advances, in units of 1/1000 of the text size (glyph space times
	// the font matrix): a simple font's per byte, a composite font's per
	// CID (cidW, cidWRanges) with dw for the rest.
	widths     [256]float64
	hasWidths  bool
	missing    float64
	cidW       map[uint32]float64
	cidWRanges []cidWidthRange
	dw         float64
	vertical   bool
	sizeScale  float64 // the font matrix's vertical scale against 1/1000 (Type 3 fonts)
	widthScale float64
}

type cidWidthRange struct {
	lo, hi uint32
	w      float64
}

// estimatedWidth stands in for the advance of a font that declares no
// widths (the standard 14 fonts may omit them): about the average of a
// Latin text font.
const estimatedWidth = 500

// glyph is one shown character code: its text, its advance in thousandths
// of the text size, and whether word spacing applies to it (a single-byte
// code 32).
type glyph struct {
	text    string
	advance float64
	space   bool
}

// glyphs splits a shown string into its glyphs.
func (f *pdfFont) glyphs(s []byte, each func(glyph)) {
	for len(s) > 0 {
		n := 1
		if f.composite {
			if f.encoding != nil {
				n = f.encoding.codeLen(s)
			} else {
				n = min(2, len(s))
			}
		}
		code := beUint(s[:n])
		s = s[n:]
		each(f.glyph(code, n))
	}
}

func (f *pdfFont) glyph(code uint32, n int) glyph {
	g := glyph{space: n == 1 && code == 32}
	text, ok := "", false
	if f.toUnicode != nil {
		text, ok = f.toUnicode.text(code, n)
	}
	if !f.composite {
		if !ok && f.simple != nil {
			text, ok = f.simple[code], f.simple[code] != ""
		}
		if !ok && code >= 0x20 && code < 0x7f {
			text = string(rune(code))
		}
		if f.hasWidths {
			g.advance = f.widths[code]
		} else if code == 32 {
			g.advance = estimatedWidth / 2
		} else {
			g.advance = estimatedWidth
		}
	} else {
		cid := code
		if f.encoding != nil {
			cid, _ = f.encoding.cid(code, n)
		}
		if !ok && f.ucs2 {
			text = string(rune(code))
		}
		g.advance = f.cidWidth(cid)
	}
	g.text = expandLigatures(validText(text))
	g.advance *= f.widthScale
	return g
}

func (f *pdfFont) cidWidth(cid uint32) float64 {
	if f.vertical {
		return 1000 // vertical fonts advance by their default 1000 down
	}
	if w, ok := f.cidW[cid]; ok {
		return w
	}
	i := sort.Search(len(f.cidWRanges), func(i int) bool { return f.cidWRanges[i].lo > cid })
	if i > 0 && cid <= f.cidWRanges[i-1].hi {
		return f.cidWRanges[i-1].w
	}
	return f.dw
}

// fontLoader reads font dictionaries, through the file's decompression
// budget, and caches them: by the dictionary's text, which names its
// parts by object number, so a font shared by pages is read once.
type fontLoader struct {
	budget *decompressBudget
	cache  map[string]*pdfFont
}

// maxFontCache bounds the fonts kept; a file with more is read again as
// needed, within its budget.
const maxFontCache = 2048

func (l *fontLoader) load(v pdf.Value) (*pdfFont, error) {
	if v.Kind() != pdf.Dict {
		return nil, nil
	}
	key := v.String()
	if f, ok := l.cache[key]; ok {
		return f, nil
	}
	f, err := l.readSafely(v)
	if err != nil {
		return nil, err
	}
	if len(l.cache) < maxFontCache {
		l.cache[key] = f
	}
	return f, nil
}

// readSafely reads a font; one the PDF library cannot read (it panics on
// some malformed objects) is read as a font with no encoding and no
// widths, so the rest of the page still reads.
func (l *fontLoader) readSafely(v pdf.Value) (f *pdfFont, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = &pdfFont{sizeScale: 1, widthScale: 1, simple: standardEncoding}, nil
		}
	}()
	return l.read(v)
}

func (l *fontLoader) read(v pdf.Value) (*pdfFont, error) {
	f := &pdfFont{sizeScale: 1, widthScale: 1}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		data, err := l.stream(tu, maxCMapBytes, "a font's character map")
		if err != nil {
			return nil, err
		}
		if f.toUnicode, err = parseCMap(data); err != nil {
			return nil, limitErr("a font's character map in the PDF has more than %d entries", maxCMapEntries)
		}
	}
	switch v.Key("Subtype").Name() {
	case "Type0":
		return f, l.composite(f, v)
	case "Type3":
		if m := v.Key("FontMatrix"); m.Len() == 6 {
			// Widths are in glyph space, which the matrix maps to text
			// space; sizes are measured against the usual 1/1000.
			if a := m.Index(0).Float64(); a > 0 {
				f.widthScale = a * 1000
			}
			if d := m.Index(3).Float64(); d > 0 {
				f.sizeScale = d * 1000
			}
		}
	}
	return f, l.simpleFont(f, v)
}

func (l *fontLoader) simpleFont(f *pdfFont, v pdf.Value) error {
	if w := v.Key("Widths"); w.Kind() == pdf.Array {
		f.hasWidths = true
		f.missing = v.Key("FontDescriptor").Key("MissingWidth").Float64()
		for i := range f.widths {
			f.widths[i] = f.missing
		}
		first := v.Key("FirstChar").Int64()
		for i := 0; i < w.Len() && i < 256; i++ {
			if c := first + int64(i); c >= 0 && c < 256 {
				f.widths[c] = w.Index(i).Float64()
			}
		}
	}
	enc := v.Key("Encoding")
	var base *byteEncoding
	var diffs pdf.Value
	switch enc.Kind() {
	case pdf.Name:
		base = namedEncoding(enc.Name())
	case pdf.Dict:
		base = namedEncoding(enc.Key("BaseEncoding").Name())
		diffs = enc.Key("Differences")
	}
	if base == nil {
		var err error
		if base, err = l.builtinEncoding(v); err != nil {
			return err
		}
	}
	if base == nil {
		switch {
		case v.Key("Subtype").Name() == "TrueType" && v.Key("FontDescriptor").Key("Flags").Int64()&4 == 0:
			base = winAnsiEncoding // nonsymbolic TrueType
		case v.Key("Subtype").Name() == "Type1" || v.Key("Subtype").Name() == "MMType1":
			base = standardEncoding
		}
	}
	e := new(byteEncoding)
	if base != nil {
		*e = *base
	}
	if diffs.Kind() == pdf.Array {
		code := -1
		for i := 0; i < diffs.Len() && i < 4096; i++ {
			switch x := diffs.Index(i); x.Kind() {
			case pdf.Integer:
				code = int(x.Int64())
			case pdf.Name:
				if code >= 0 && code < 256 {
					e[code] = glyphText(x.Name())
				}
				code++
			}
		}
	}
	f.simple = e
	return nil
}

// builtinEncoding reads the encoding a Type 1 font program declares in its
// clear-text header ("dup 65 /A put"), which a font whose dictionary
// names none uses. Other font programs' encodings are not read.
func (l *fontLoader) builtinEncoding(v pdf.Value) (*byteEncoding, error) {
	file := v.Key("FontDescriptor").Key("FontFile")
	if file.Kind() != pdf.Stream {
		return nil, nil
	}
	data, err := l.streamHead(file, 64<<10)
	if err != nil {
		return nil, err
	}
	return type1Encoding(data), nil
}

// type1Encoding reads the encoding of a Type 1 font program's clear-text
// header: StandardEncoding, or "dup code /name put" entries. Nil when it
// declares none.
func type1Encoding(data []byte) *byteEncoding {
	if i := strings.Index(string(data), "eexec"); i >= 0 {
		data = data[:i]
	}
	t := psTokens{b: data}
	var e byteEncoding
	found := false
	var last [4]psToken
	for {
		tok, ok := t.next()
		if !ok {
			break
		}
		copy(last[:], last[1:])
		last[3] = tok
		if tok.kind == 'k' && string(tok.b) == "StandardEncoding" {
			return standardEncoding
		}
		if tok.kind == 'k' && string(tok.b) == "put" && last[0].kind == 'k' && string(last[0].b) == "dup" &&
			last[1].kind == 'i' && last[1].n >= 0 && last[1].n < 256 && last[2].kind == '/' {
			e[last[1].n] = glyphText(string(last[2].b))
			found = true
		}
	}
	if !found {
		return nil
	}
	return &e
}

func (l *fontLoader) composite(f *pdfFont, v pdf.Value) error {
	f.composite = true
	switch enc := v.Key("Encoding"); enc.Kind() {
	case pdf.Name:
		name := enc.Name()
		f.vertical = strings.HasSuffix(name, "-V")
		f.ucs2 = strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16")
	case pdf.Stream:
		data, err := l.stream(enc, maxCMapBytes, "a font's encoding")
		if err != nil {
			return err
		}
		if f.encoding, err = parseCMap(data); err != nil {
			return limitErr("a font's encoding in the PDF has more than %d entries", maxCMapEntries)
		}
		f.vertical = enc.Key("WMode").Int64() == 1
	}
	d := v.Key("DescendantFonts").Index(0)
	f.dw = 1000
	if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.dw = dw.Float64()
	}
	f.cidW = map[uint32]float64{}
	w := d.Key("W")
	entries := 0
	for i := 0; i < w.Len() && entries < maxCMapEntries; {
		first := w.Index(i)
		if first.Kind() != pdf.Integer {
			break
		}
		if next := w.Index(i + 1); next.Kind() == pdf.Array {
			c := uint32(first.Int64())
			for j := 0; j < next.Len() && entries < maxCMapEntries; j++ {
				f.cidW[c+uint32(j)] = next.Index(j).Float64()
				entries++
			}
			i += 2
			continue
		}
		lo, hi := w.Index(i+1), w.Index(i+2)
		if lo.Kind() != pdf.Integer {
			break
		}
		if lo.Int64() >= first.Int64() && first.Int64() >= 0 {
			f.cidWRanges = append(f.cidWRanges, cidWidthRange{uint32(first.Int64()), uint32(lo.Int64()), hi.Float64()})
			entries++
		}
		i += 3
	}
	sort.Slice(f.cidWRanges, func(i, j int) bool { return f.cidWRanges[i].lo < f.cidWRanges[j].lo })
	return nil
}

// stream reads a whole stream of at most max bytes, decompressed through
// the budget.
func (l *fontLoader) stream(v pdf.Value, max int64, what string) ([]byte, error) {
	rc := v.Reader()
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(&countingReader{r: rc, b: l.budget}, max+1))
	if errors.Is(err, ErrLimit) {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, limitErr("%s in the PDF exceeds %s decompressed", what, mib(max))
	}
	// A damaged stream gives what could be read of it: a font's map
	// half read still maps most of the text.
	return data, nil
}

// streamHead reads up to n bytes of a stream; a damaged stream gives what
// could be read.
func (l *fontLoader) streamHead(v pdf.Value, n int64) ([]byte, error) {
	rc := v.Reader()
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(&countingReader{r: rc, b: l.budget}, n))
	if errors.Is(err, ErrLimit) {
		return nil, err
	}
	return data, nil
}
