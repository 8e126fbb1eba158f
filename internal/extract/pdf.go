package extract

import (
	"context"
	"errors"
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
	out := &pageWriter{w: w}
	it := &textInterpreter{
		ctx:    ctx,
		fonts:  &fontLoader{budget: budget, cache: map[string]*pdfFont{}},
		budget: budget,
		// A string longer than this could not be written within the text
		// limit (a character code is at least one byte).
		maxString: int(max(2*l.MaxTextBytes, 1<<20)),
		layout:    &pageLayout{out: out, maxText: int(l.MaxTextBytes) + 1},
	}
	for i := 1; i <= pages; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		out.startPage()
		err := it.page(p)
		it.layout.flush()
		if err != nil {
			if errors.Is(err, ErrLimit) || out.err != nil || ctx.Err() != nil {
				return err
			}
			return malformed("page %d: %v", i, err)
		}
		if out.err != nil {
			return out.err
		}
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
