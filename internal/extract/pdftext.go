package extract

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// matrix is a PDF transformation [a b c d e f]: a point (x, y) goes to
// (a·x + c·y + e, b·x + d·y + f).
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m then n: the point goes through m first.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

// graphicsState is the part of the graphics state (PDF 32000-1 §8.4,
// §9.3) that places text.
type graphicsState struct {
	ctm                        matrix
	font                       *pdfFont
	size                       float64 // Tf
	charSpace, wordSpace, rise float64 // Tc, Tw, Ts
	scale                      float64 // Tz, as a fraction
	leading                    float64 // TL
}

// textInterpreter runs a page's content streams, and those of the forms
// they draw, placing each glyph they show on the page's layout.
type textInterpreter struct {
	ctx       context.Context
	ops       int // operators run, to look at ctx now and then
	fonts     *fontLoader
	budget    *decompressBudget
	maxString int
	layout    *pageLayout
	gs        graphicsState
	stack     []graphicsState
	dropped   int    // saves (q) past maxSaves, restored (Q) without effect
	tm, tlm   matrix // the text matrix and the text line matrix
	forms     int    // forms drawn on this page
}

// Bounds of one page's interpretation: saved states, forms within forms,
// and forms drawn in all (each is read again through the budget, but a
// tiny form drawn millions of times costs time, not bytes).
const (
	maxSaves     = 256
	maxFormDepth = 8
	maxPageForms = 10_000
)

// fallbackFont reads strings shown before any font is set, or in a font
// the file does not define: bytes as ASCII, at an estimated width.
var fallbackFont = &pdfFont{simple: standardEncoding, sizeScale: 1, widthScale: 1}

func (it *textInterpreter) page(p pdf.Page) error {
	// A page that shows text before setting a font gets a common size.
	it.gs = graphicsState{ctm: identity, scale: 1, font: fallbackFont, size: 12}
	it.stack, it.dropped, it.forms = it.stack[:0], 0, 0
	it.tm, it.tlm = identity, identity
	return it.run(p.V.Key("Contents"), p.Resources(), 0)
}

// run interprets a content stream (or the streams a page's content is
// split into, read as one) with the given resources.
func (it *textInterpreter) run(contents, resources pdf.Value, depth int) error {
	var streams []pdf.Value
	switch contents.Kind() {
	case pdf.Stream:
		streams = []pdf.Value{contents}
	case pdf.Array:
		for i := 0; i < contents.Len(); i++ {
			if s := contents.Index(i); s.Kind() == pdf.Stream {
				streams = append(streams, s)
			}
		}
	}
	readers := make([]io.Reader, 0, 2*len(streams))
	for _, s := range streams {
		rc := s.Reader()
		defer rc.Close()
		// Streams of one page are one program; a space keeps a token
		// from running across the seam.
		readers = append(readers, rc, strings.NewReader("\n"))
	}
	sc := newContentScanner(&countingReader{r: io.MultiReader(readers...), b: it.budget}, it.maxString)
	fonts := map[string]*pdfFont{} // by resource name, for this stream
	out := it.layout.out
	for {
		op, err := sc.next()
		if errors.Is(err, io.EOF) {
			return out.err
		}
		if err != nil {
			return err
		}
		// The text is written when the page ends, so the writer, which
		// stops a cancelled job, is not reached on a long page.
		if it.ops++; it.ops%4096 == 0 {
			if err := it.ctx.Err(); err != nil {
				return err
			}
		}
		if err := it.operator(op, sc, resources, fonts, depth); err != nil {
			return err
		}
		sc.n = 0
		if out.err != nil {
			return out.err
		}
	}
}

func (it *textInterpreter) operator(op string, sc *contentScanner, resources pdf.Value, fonts map[string]*pdfFont, depth int) error {
	gs := &it.gs
	switch op {
	case "q":
		if len(it.stack) < maxSaves {
			it.stack = append(it.stack, *gs)
		} else {
			it.dropped++
		}
	case "Q":
		if it.dropped > 0 {
			it.dropped--
		} else if n := len(it.stack); n > 0 {
			*gs = it.stack[n-1]
			it.stack = it.stack[:n-1]
		}
	case "cm":
		if v, ok := sc.nums(6); ok {
			gs.ctm = matrix(v).mul(gs.ctm)
		}
	case "BT":
		it.tm, it.tlm = identity, identity
	case "Tf":
		if a := sc.arg(2); a.kind == 'n' {
			f, ok := fonts[string(a.b)]
			if !ok {
				var err error
				if f, err = it.fonts.load(resources.Key("Font").Key(string(a.b))); err != nil {
					return err
				}
				if f == nil {
					f = fallbackFont
				}
				if len(fonts) < 1024 {
					fonts[string(a.b)] = f
				}
			}
			gs.font = f
		}
		if v, ok := sc.nums(1); ok {
			gs.size = v[0]
		}
	case "Tc":
		if v, ok := sc.nums(1); ok {
			gs.charSpace = v[0]
		}
	case "Tw":
		if v, ok := sc.nums(1); ok {
			gs.wordSpace = v[0]
		}
	case "Tz":
		if v, ok := sc.nums(1); ok {
			gs.scale = v[0] / 100
		}
	case "TL":
		if v, ok := sc.nums(1); ok {
			gs.leading = v[0]
		}
	case "Ts":
		if v, ok := sc.nums(1); ok {
			gs.rise = v[0]
		}
	case "Td", "TD":
		if v, ok := sc.nums(2); ok {
			if op == "TD" {
				gs.leading = -v[1]
			}
			it.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(it.tlm)
			it.tm = it.tlm
		}
	case "Tm":
		if v, ok := sc.nums(6); ok {
			it.tlm, it.tm = matrix(v), matrix(v)
		}
	case "T*":
		it.nextLine()
	case "Tj":
		if a := sc.arg(1); a.kind == 's' {
			it.show(a.b)
		}
	case "'":
		it.nextLine()
		if a := sc.arg(1); a.kind == 's' {
			it.show(a.b)
		}
	case "\"":
		if v, ok := sc.nums(3); ok || sc.n >= 3 {
			gs.wordSpace, gs.charSpace = v[0], v[1]
		}
		it.nextLine()
		if a := sc.arg(1); a.kind == 's' {
			it.show(a.b)
		}
	case "TJ":
		if a := sc.arg(1); a.kind == 'a' {
			start := 0
			for _, item := range sc.items {
				if item.end < 0 {
					it.move(-item.num / 1000 * gs.size)
					continue
				}
				it.show(sc.arr[start:item.end])
				start = item.end
			}
		}
	case "Do":
		if a := sc.arg(1); a.kind == 'n' && depth < maxFormDepth && it.forms < maxPageForms {
			return it.form(resources.Key("XObject").Key(string(a.b)), resources, depth)
		}
	case "BI":
		return sc.skipInlineImage()
	}
	return nil
}

// form draws a form XObject (§8.10): its content, in its own matrix, with
// its own resources or else those of what draws it.
func (it *textInterpreter) form(x, resources pdf.Value, depth int) error {
	if x.Kind() != pdf.Stream || x.Key("Subtype").Name() != "Form" {
		return nil
	}
	it.forms++
	saved, savedTm, savedTlm := it.gs, it.tm, it.tlm
	stack := len(it.stack)
	if m := x.Key("Matrix"); m.Len() == 6 {
		var v matrix
		for i := range v {
			v[i] = m.Index(i).Float64()
		}
		it.gs.ctm = v.mul(it.gs.ctm)
	}
	if r := x.Key("Resources"); r.Kind() == pdf.Dict {
		resources = r
	}
	err := it.run(x, resources, depth+1)
	it.gs, it.tm, it.tlm = saved, savedTm, savedTlm
	if len(it.stack) > stack {
		it.stack = it.stack[:stack]
	}
	return err
}

func (it *textInterpreter) nextLine() {
	it.tlm = matrix{1, 0, 0, 1, 0, -it.gs.leading}.mul(it.tlm)
	it.tm = it.tlm
}

// move shifts the text matrix along the line (or down it, for vertical
// writing) by d in text space.
func (it *textInterpreter) move(d float64) {
	if it.gs.font.vertical {
		it.tm = matrix{1, 0, 0, 1, 0, d}.mul(it.tm)
		return
	}
	it.tm = matrix{1, 0, 0, 1, d * it.gs.scale, 0}.mul(it.tm)
}

// show places the glyphs of a string (§9.4.4): each at the text matrix,
// which then advances by the glyph's width and the spacing.
func (it *textInterpreter) show(s []byte) {
	gs := &it.gs
	f := gs.font
	f.glyphs(s, func(g glyph) {
		m := it.tm.mul(gs.ctm)
		w := g.advance / 1000 * gs.size
		if g.text != "" {
			size := math.Abs(gs.size) * f.sizeScale * math.Hypot(m[2], m[3])
			x0, y0 := m.apply(0, gs.rise)
			var x1, y1 float64
			dx, dy := m[0], m[1]
			if f.vertical { // the glyphs run down the page
				x1, y1 = m.apply(0, gs.rise-w)
				dx, dy = -m[2], -m[3]
			} else {
				x1, y1 = m.apply(w*gs.scale, gs.rise)
			}
			if finite(x0, y0, x1, y1, size) && size > 0 {
				it.layout.add(g.text, x0, y0, x1, y1, size, dx, dy)
			}
		}
		spacing := gs.charSpace
		if g.space {
			spacing += gs.wordSpace
		}
		if f.vertical {
			it.move(-w + spacing)
		} else {
			it.move(w + spacing)
		}
	})
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
