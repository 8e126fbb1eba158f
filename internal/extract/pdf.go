package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the page loop: the page count is read from the file,
// and a hostile one may claim billions.
const maxPDFPages = 100_000

// pdfText writes the text layer of each page, pages separated by a blank
// line. The PDF library reads the file's structure (pages, fonts, their
// encodings); the content streams, where the text is, are decompressed and
// read here, through the file's decompression budget and in small pieces,
// so a stream that inflates to gigabytes is refused once it passes the
// budget and never held in memory. The library panics on some malformed
// files: a panic is turned into ErrMalformed.
func pdfText(ctx context.Context, src Source, w *textWriter, l Limits) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = malformed("not a readable PDF: %v", v)
		}
	}()
	if err := checkPDFStructure(io.NewSectionReader(src.RA, 0, src.Size), l.MaxDecompressedBytes); err != nil {
		return err
	}
	r, err := pdf.NewReader(src.RA, src.Size)
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "encrypt") || strings.Contains(err.Error(), "password") {
			return malformed("the PDF is encrypted")
		}
		return malformed("not a readable PDF: %v", err)
	}
	pages := r.NumPage()
	if pages < 0 || pages > maxPDFPages {
		return malformed("the PDF claims %d pages", pages)
	}
	budget := &decompressBudget{left: l.MaxDecompressedBytes, max: l.MaxDecompressedBytes, what: "PDF's page content"}
	fonts := &pdfFonts{byName: map[string]*pdf.Font{}, budget: budget}
	out := &pageWriter{w: w}
	for i := 1; i <= pages; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		fonts.page = p
		out.startPage()
		// A string longer than this could not be written within the text
		// limit (a character code is at most two bytes).
		maxString := int(max(2*l.MaxTextBytes, 1<<20))
		if err := pageText(p.V.Key("Contents"), budget, maxString, fonts, out); err != nil {
			if errors.Is(err, ErrLimit) || out.err != nil {
				return err
			}
			return malformed("page %d: %v", i, err)
		}
	}
	return nil
}

// pageText reads a page's content stream (or the streams it is split
// into, read as one) and writes the text it shows.
func pageText(contents pdf.Value, budget *decompressBudget, maxString int, fonts *pdfFonts, out *pageWriter) error {
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
	readers := make([]io.Reader, 0, len(streams))
	for _, s := range streams {
		rc := s.Reader()
		defer rc.Close()
		// Streams of one page are one program; a space keeps a token
		// from running across the seam.
		readers = append(readers, rc, strings.NewReader("\n"))
	}
	sc := newContentScanner(&countingReader{r: io.MultiReader(readers...), b: budget}, maxString)
	return sc.run(fonts, out)
}

// pdfFonts resolves the fonts a page's text names, caching each by its
// resource name across pages (as documents reuse them). A font's character
// map is measured through the budget before the library reads it, since
// the library interprets the whole map in memory.
type pdfFonts struct {
	byName map[string]*pdf.Font
	page   pdf.Page
	budget *decompressBudget
}

func (f *pdfFonts) encoder(name string) (pdf.TextEncoding, error) {
	font, ok := f.byName[name]
	if !ok {
		v := f.page.Font(name)
		font = &v
		if cmap := font.V.Key("ToUnicode"); cmap.Kind() == pdf.Stream {
			if err := f.measure(cmap); err != nil {
				return nil, err
			}
		}
		f.byName[name] = font
	}
	if font.V.IsNull() {
		return nil, nil
	}
	return font.Encoder(), nil
}

func (f *pdfFonts) measure(cmap pdf.Value) error {
	rc := cmap.Reader()
	defer rc.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(&countingReader{r: rc, b: f.budget}, maxCMapBytes+1))
	if errors.Is(err, ErrLimit) {
		return err
	}
	if n > maxCMapBytes {
		return limitErr("a font's character map in the PDF exceeds %s decompressed", mib(maxCMapBytes))
	}
	if err != nil {
		return fmt.Errorf("a font's character map: %w", err)
	}
	return nil
}

// pageWriter trims the white space around each page's text and separates
// pages with a blank line, while streaming: white space is held back until
// text follows it.
type pageWriter struct {
	w       *textWriter
	err     error
	started bool // the page has text
	space   []byte
}

func (o *pageWriter) startPage() { o.started, o.space = false, o.space[:0] }

func (o *pageWriter) text(s string) {
	for len(s) > 0 && o.err == nil {
		i := strings.IndexFunc(s, func(r rune) bool { return !isPDFSpace(r) })
		if i < 0 {
			if o.started {
				o.space = append(o.space, s...)
				if len(o.space) > 4096 { // runs of white space shrink to their start
					o.space = o.space[:4096]
				}
			}
			return
		}
		if i > 0 && o.started {
			o.space = append(o.space, s[:i]...)
		}
		s = s[i:]
		j := strings.IndexFunc(s, isPDFSpace)
		if j < 0 {
			j = len(s)
		}
		if !o.started {
			if o.w.chars > 0 {
				o.write("\n\n")
			}
			o.started = true
		}
		if len(o.space) > 0 {
			o.write(string(o.space))
			o.space = o.space[:0]
		}
		o.write(s[:j])
		s = s[j:]
	}
}

func isPDFSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
}

func (o *pageWriter) write(s string) {
	if o.err == nil {
		_, o.err = o.w.WriteString(s)
	}
}
