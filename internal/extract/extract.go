package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
)

// Source is the file to read. Streaming formats read R; formats whose
// directory sits at the end of the file (PDF, DOCX) need RA and Size.
type Source struct {
	R    io.Reader
	RA   io.ReaderAt
	Size int64
}

// Result describes what Extract wrote.
type Result struct {
	// Extractor names the format handler (plain, markdown, csv, json,
	// html, pdf, docx), or "none" when the file is passed on as it is.
	Extractor string
	// Chars counts the characters (runes) of text written.
	Chars int64
	// Note explains, for a passed-through file or an empty result, why
	// there is no text.
	Note string
}

// Errors: ErrUnsupported for a type with no extractor, ErrMalformed
// (wrapped, with the reason) for a file that does not parse as its type,
// and ErrLimit (limits.go) for one that passes a limit.
var (
	ErrUnsupported = errors.New("no text can be extracted from this type of file")
	ErrMalformed   = errors.New("the file could not be read")
)

// extractor writes the text of src to w.
type extractor struct {
	name string
	// random says the extractor reads Source.RA rather than Source.R.
	random bool
	run    func(ctx context.Context, src Source, w *textWriter, l Limits) error
}

var extractors = map[string]extractor{
	"text/plain":            {name: "plain", run: plainText},
	"text/markdown":         {name: "markdown", run: plainText},
	"text/x-markdown":       {name: "markdown", run: plainText},
	"text/csv":              {name: "csv", run: plainText},
	"application/json":      {name: "json", run: jsonText},
	"text/html":             {name: "html", run: htmlText},
	"application/xhtml+xml": {name: "html", run: htmlText},
	"application/pdf":       {name: "pdf", random: true, run: pdfText},
	MediaDOCX:               {name: "docx", random: true, run: docxText},
}

// MediaDOCX is the media type of Word documents.
const MediaDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// Supported lists the media types Extract turns into text.
func Supported() []string {
	return []string{"text/plain", "text/markdown", "text/csv", "application/json", "text/html", "application/pdf", MediaDOCX}
}

// Supports reports whether Extract has a text extractor for the type.
func Supports(mediaType string) bool {
	_, ok := extractors[base(mediaType)]
	return ok
}

// Passthrough reports whether files of this type are given to models as
// they are (multi-modal input) rather than as text.
func Passthrough(mediaType string) bool {
	mt := base(mediaType)
	return strings.HasPrefix(mt, "image/") || strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/")
}

// NeedsRandomAccess reports whether Extract reads Source.RA for this type,
// so the caller knows to provide a seekable copy of the file.
func NeedsRandomAccess(mediaType string) bool {
	return extractors[base(mediaType)].random
}

// Extract writes the text of src, a file of mediaType, to w as UTF-8,
// within the default Limits.
func Extract(ctx context.Context, mediaType string, src Source, w io.Writer) (Result, error) {
	return Limits{}.Extract(ctx, mediaType, src, w)
}

// Extract writes the text of src, a file of mediaType, to w as UTF-8. A
// file that passes a limit is an error wrapping ErrLimit, saying which.
func (l Limits) Extract(ctx context.Context, mediaType string, src Source, w io.Writer) (Result, error) {
	l = l.withDefaults()
	mt := base(mediaType)
	ex, ok := extractors[mt]
	if !ok {
		if Passthrough(mt) {
			return Result{Extractor: "none", Note: fmt.Sprintf("%s files have no text to extract; they are given to multi-modal models as they are", kindOf(mt))}, nil
		}
		return Result{}, fmt.Errorf("%w: %s (supported: %s; images, audio and video are passed on as they are)", ErrUnsupported, mt, strings.Join(Supported(), ", "))
	}
	if ex.random && (src.RA == nil || src.Size < 0) {
		return Result{}, fmt.Errorf("extract %s: random access to the file is required", mt)
	}
	if !ex.random && src.R == nil {
		return Result{}, fmt.Errorf("extract %s: no reader", mt)
	}
	tw := newTextWriter(ctx, w, l.MaxTextBytes)
	err := ex.run(ctx, src, tw, l)
	if tw.err != nil {
		err = tw.err // however the extractor reported the failed write
	}
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{Extractor: ex.name, Chars: tw.chars}
	if tw.chars == 0 {
		res.Note = "the file contains no text"
		if ex.name == "pdf" {
			res.Note = "the PDF has no text layer (a scanned document?)"
		}
	}
	return res, nil
}

func base(mediaType string) string {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(mediaType))
	}
	return mt
}

func kindOf(mt string) string {
	switch {
	case strings.HasPrefix(mt, "image/"):
		return "image"
	case strings.HasPrefix(mt, "audio/"):
		return "audio"
	}
	return "video"
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}
