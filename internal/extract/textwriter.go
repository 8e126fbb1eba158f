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
// cancelled job does not grind through the rest of a large file.
type textWriter struct {
	ctx     context.Context
	w       *bufio.Writer
	pending []byte // the start of a character the next write completes
	chars   int64
	writes  int
}

func newTextWriter(ctx context.Context, w io.Writer) *textWriter {
	return &textWriter{ctx: ctx, w: bufio.NewWriterSize(w, 64<<10)}
}

func (t *textWriter) Write(p []byte) (int, error) {
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
			if _, err := t.w.WriteRune(utf8.RuneError); err != nil {
				return 0, err
			}
			t.chars++
			p = p[1:]
			continue
		}
		if _, err := t.w.Write(p[:size]); err != nil {
			return 0, err
		}
		t.chars++
		p = p[size:]
	}
	return n, nil
}

// WriteString writes s (extractors mostly produce strings).
func (t *textWriter) WriteString(s string) (int, error) { return t.Write([]byte(s)) }

// Flush writes what is buffered; a character left incomplete at the end of
// the input becomes U+FFFD.
func (t *textWriter) Flush() error {
	if len(t.pending) > 0 {
		if _, err := t.w.WriteRune(utf8.RuneError); err != nil {
			return err
		}
		t.chars++
		t.pending = nil
	}
	return t.w.Flush()
}
