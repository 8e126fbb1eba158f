package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// PayloadError is a payload read from a file or stream (an export, a
// definition) that is not valid JSON, with where it first goes wrong.
// Line and Column are 1-based; Column counts characters.
type PayloadError struct {
	Line, Column int
	Msg          string
}

func (e *PayloadError) Error() string {
	if e.Line == 0 {
		return "the payload is not JSON: " + e.Msg
	}
	return fmt.Sprintf("the payload is not JSON: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// checkJSON returns nil for valid JSON, else a *PayloadError locating the
// first syntax error.
func checkJSON(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		msg := "invalid JSON"
		if err != nil {
			msg = err.Error()
		}
		return &PayloadError{Msg: msg}
	}
	// Offset counts the bytes read, the offending one included.
	at := max(int(se.Offset)-1, 0)
	at = min(at, len(b))
	line := 1 + bytes.Count(b[:at], []byte("\n"))
	start := bytes.LastIndexByte(b[:at], '\n') + 1
	return &PayloadError{Line: line, Column: utf8.RuneCount(b[start:at]) + 1, Msg: se.Error()}
}
