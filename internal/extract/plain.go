package extract

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// plainText copies text as it is. A byte-order mark selects UTF-16 (common
// in files saved by Windows tools) or is dropped for UTF-8; without one the
// text is read as UTF-8.
func plainText(_ context.Context, src Source, w *textWriter, _ Limits) error {
	_, err := io.Copy(w, decodeText(src.R))
	return err
}

func decodeText(r io.Reader) io.Reader {
	return transform.NewReader(r, unicode.BOMOverride(unicode.UTF8.NewDecoder()))
}

// jsonText checks that the file is JSON (one value, or a sequence of values
// as in JSON Lines) while copying it: the text a model reads is the JSON
// itself, and a file that is not JSON is reported rather than passed on.
// The decoder walks tokens and builds no values; it does keep a stack entry
// per open array or object, so the nesting is bounded before it grows
// (a 20 MB "[[[[..." would otherwise cost hundreds of MB).
func jsonText(_ context.Context, src Source, w *textWriter, l Limits) error {
	dec := json.NewDecoder(io.TeeReader(decodeText(src.R), w))
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if depth > 0 {
				return malformed("not valid JSON: the file ends in the middle of a value")
			}
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrLimit) {
				return err
			}
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return malformed("not valid JSON at byte %d: %v", se.Offset, err)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return malformed("not valid JSON: the file ends in the middle of a value")
			}
			return malformed("not valid JSON: %v", err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if depth++; depth > l.MaxDepth {
				return limitErr("the JSON nests deeper than %d levels", l.MaxDepth)
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}
