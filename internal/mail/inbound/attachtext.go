package inbound

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/extract"
)

// Attachments reach the run as part of its JSON input (name, type, size,
// blob key, and text). Text attachments carry their text from parsing;
// documents the upload pipeline can read (PDF, Word, HTML, CSV, JSON…)
// get their text extracted here, within the extractors' own limits, so a
// step reads a mailed report the way it reads an uploaded one.

// maxExtractedText bounds the text one attachment adds to the input.
const maxExtractedText = 64 << 10

// extractTimeout bounds the extraction of one attachment.
const extractTimeout = 10 * time.Second

// errTextFull stops an extractor once the text has what the input keeps.
var errTextFull = errors.New("attachment text limit reached")

type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		return max(room, 0), errTextFull
	}
	return c.buf.Write(p)
}

// attachmentText extracts the text of a document attachment, "" when its
// type has no extractor or it does not parse (the blob is kept either way).
func attachmentText(ctx context.Context, a *Attachment) string {
	ct := extract.DetectType(a.Filename, a.ContentType, a.Data[:min(len(a.Data), 512)])
	if !extract.Supports(ct) {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, extractTimeout)
	defer cancel()
	w := &capped{max: maxExtractedText}
	r := bytes.NewReader(a.Data)
	_, err := extract.Extract(ctx, ct, extract.Source{R: r, RA: r, Size: int64(len(a.Data))}, w)
	if err != nil && !errors.Is(err, errTextFull) {
		slog.DebugContext(ctx, "inbound attachment: no text", "type", ct, "err", err)
		if w.buf.Len() == 0 {
			return ""
		}
	}
	b := w.buf.Bytes()
	for len(b) > 0 && !utf8.Valid(b) { // a cut through a multi-byte rune
		b = b[:len(b)-1]
	}
	return string(b)
}
