package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds nesting so that hostile payloads cannot make the
// recursive walkers downstream use unbounded stack.
const MaxDepth = 512

// SyntaxError is malformed JSON, positioned in the raw input (there is no
// canonical text to point into when the payload does not parse).
type SyntaxError struct {
	Offset int64 // byte offset of the offending character
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Parse decodes data into map[string]any, []any, string, json.Number, bool
// and nil. Numbers keep their literal text so that the canonical echo shows
// exactly what was sent. When an object repeats a key the last value wins
// (as in most JSON decoders) and the path of that key is returned in dups,
// in order of appearance. Any syntax problem is a *SyntaxError.
func Parse(data []byte) (v any, dups []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &parser{dec: dec, data: data}
	v, err = p.value("", 0)
	if err != nil {
		return nil, nil, p.syntaxError(err)
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		at := skipSpace(data, off)
		return nil, nil, newSyntaxError(data, at, "unexpected data after the top-level value")
	}
	return v, p.dups, nil
}

type parser struct {
	dec  *json.Decoder
	data []byte
	dups []string
}

var errTooDeep = errors.New("too deep")

func (p *parser) value(path string, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, errTooDeep
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		obj := map[string]any{}
		for p.dec.More() {
			kt, err := p.dec.Token()
			if err != nil {
				return nil, err
			}
			k, ok := kt.(string)
			if !ok {
				return nil, &json.SyntaxError{Offset: p.dec.InputOffset()}
			}
			kp := Key(path, k)
			v, err := p.value(kp, depth+1)
			if err != nil {
				return nil, err
			}
			if _, seen := obj[k]; seen {
				p.dups = append(p.dups, kp)
			}
			obj[k] = v
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, err
		}
		return obj, nil
	case '[':
		arr := []any{}
		for p.dec.More() {
			v, err := p.value(Index(path, len(arr)), depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return nil, &json.SyntaxError{Offset: p.dec.InputOffset()}
}

// syntaxError turns any decoder failure into a positioned *SyntaxError.
func (p *parser) syntaxError(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return newSyntaxError(p.data, offendingByte(p.data, se), trimPrefix(se.Error()))
	case errors.Is(err, errTooDeep):
		return newSyntaxError(p.data, p.dec.InputOffset(), fmt.Sprintf("nested deeper than %d levels", MaxDepth))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return newSyntaxError(p.data, int64(len(p.data)), "unexpected end of JSON input")
	default:
		return newSyntaxError(p.data, p.dec.InputOffset(), trimPrefix(err.Error()))
	}
}

// offendingByte locates the character a *json.SyntaxError complains about.
// encoding/json's Offset is the index of that character for structural
// errors but one past it, or one before it inside strings, for errors met
// while decoding a scalar; the message names the character, so look for it
// around Offset.
func offendingByte(data []byte, se *json.SyntaxError) int64 {
	off := se.Offset
	const marker = "invalid character '"
	msg := se.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return clampOffset(data, off)
	}
	rest := msg[i+len(marker):]
	j := strings.Index(rest, "' ")
	if j < 0 {
		return clampOffset(data, off)
	}
	var c byte
	switch inner := rest[:j]; {
	case inner == `\'`:
		c = '\''
	default:
		u, err := strconv.Unquote(`"` + inner + `"`)
		if err != nil || len(u) != 1 {
			return clampOffset(data, off)
		}
		c = u[0]
	}
	for _, cand := range []int64{off, off - 1, off + 1} {
		if cand >= 0 && cand < int64(len(data)) && data[cand] == c {
			return cand
		}
	}
	return clampOffset(data, off)
}

func clampOffset(data []byte, off int64) int64 {
	if off < 0 {
		return 0
	}
	if off > int64(len(data)) {
		return int64(len(data))
	}
	return off
}

func trimPrefix(msg string) string {
	return string(bytes.TrimPrefix([]byte(msg), []byte("json: ")))
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}

// PositionOf returns the 1-based line and column (in code points) of byte
// offset off in data. Offsets past the end point just after the last
// character.
func PositionOf(data []byte, off int64) Pos {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	head := data[:off]
	line := 1 + bytes.Count(head, []byte{'\n'})
	start := bytes.LastIndexByte(head, '\n') + 1
	return Pos{Line: line, Column: 1 + utf8.RuneCount(head[start:])}
}

func newSyntaxError(data []byte, off int64, msg string) *SyntaxError {
	pos := PositionOf(data, off)
	return &SyntaxError{Offset: off, Line: pos.Line, Column: pos.Column, Msg: msg}
}
