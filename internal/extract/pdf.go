package extract

import (
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the page loop: the page count is read from the file,
// and a hostile one may claim billions.
const maxPDFPages = 100_000

// pdfText writes the text layer of each page, pages separated by a blank
// line. The PDF library reads a page's content stream into memory, never the
// whole file, and it panics on some malformed files: a panic is turned into
// ErrMalformed.
func pdfText(ctx context.Context, src Source, w *textWriter) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = malformed("not a readable PDF: %v", v)
		}
	}()
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
	fonts := map[string]*pdf.Font{}
	for i := 1; i <= pages; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		for _, name := range p.Fonts() {
			if _, ok := fonts[name]; !ok {
				f := p.Font(name)
				fonts[name] = &f
			}
		}
		text, err := p.GetPlainText(fonts)
		if err != nil {
			return malformed("page %d: %v", i, err)
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if w.chars > 0 {
			if _, err := w.WriteString("\n\n"); err != nil {
				return err
			}
		}
		if _, err := w.WriteString(text); err != nil {
			return fmt.Errorf("write text: %w", err)
		}
	}
	return nil
}
