package extract

import (
	"bufio"
	"context"
	"io"
	"unicode/utf8"
)

// textWriter is where extractors write: it keeps the output valid UTF-8
// (an invalid byte becomes U+FFFD, even when a character is split across
// writes), counts characters, buffers, and stops once ctx is done, so a
// cancelled job does not grind through the rest of a large file. It also
// stops once the text passes maxBytes, and keeps that error, so whatever
// an extractor makes of a failed write, Extract reports the limit.
type textWriter struct {
	ctx      context.Context
	w        *bufio.Writer
	pending  []byte // the start of a character the next write completes
	chars    int64
	bytes    int64
	maxBytes int64
	writes   int
	err      error // the limit, once passed
}

func newTextWriter(ctx context.Context, w io.Writer, maxBytes int64) *textWriter {
	return &textWriter{ctx: ctx, w: bufio.NewWriterSize(w, 64<<10), maxBytes: maxBytes}
}

func (t *textWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if t.writes++; t.writes%256 == 0 {
		if err := t.ctx.Err(); err != nil {
			return 0, err
		}
	}
	n := len(p)
	if len(t.pending) > 0 {
		p = append(t.pending, p...)
		t.pending = nil
	}
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(p) {
				// The rest of this character comes with the next write.
				t.pending = append([]byte(nil), p...)
				break
			}
			if err := t.out(utf8.RuneError, nil); err != nil {
				return 0, err
			}
			p = p[1:]
			continue
		}
		if err := t.out(r, p[:size]); err != nil {
			return 0, err
		}
		p = p[size:]
	}
	return n, nil
}

// out writes one character (its encoding b, or r when b is nil), counted
// against the limit on the bytes written.
func (t *textWriter) out(r rune, b []byte) error {
	size := len(b)
	if b == nil {
		size = utf8.RuneLen(r)
	}
	if t.bytes += int64(size); t.maxBytes > 0 && t.bytes > t.maxBytes {
		t.err = limitErr("the extracted text exceeds %s", mib(t.maxBytes))
		return t.err
	}
	var err error
	if b == nil {
		_, err = t.w.WriteRune(r)
	} else {
		_, err = t.w.Write(b)
	}
	t.chars++
	return err
}

// WriteString writes s (extractors mostly produce strings).
func (t *textWriter) WriteString(s string) (int, error) { return t.Write([]byte(s)) }

// Flush writes what is buffered; a character left incomplete at the end of
// the input becomes U+FFFD.
func (t *textWriter) Flush() error {
	if len(t.pending) > 0 && t.err == nil {
		t.pending = nil
		if err := t.out(utf8.RuneError, nil); err != nil {
			return err
		}
	}
	return t.w.Flush()
}
