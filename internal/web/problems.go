package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// problem is one error or warning shown next to a form or editor, at a
// line and column of the text when it has one.
type problem struct {
	Severity string // error or warning
	Path     string // the field, in the API's path notation
	Message  string
	Line     int
	Column   int
}

// apiProblems reads a 422's validation items as problems, positioned with
// at (nil: no positions). ok is false for any other error.
func apiProblems(err error, at canonjson.Positions) ([]problem, bool) {
	var ve *client.ValidationError
	if errors.As(err, &ve) {
		out := make([]problem, 0, len(ve.Items))
		for _, it := range ve.Items {
			out = append(out, positioned(problem{Severity: "error", Path: locPath(it.Loc), Message: it.Msg}, at))
		}
		return out, true
	}
	var ie *client.ImportError
	if errors.As(err, &ie) {
		out := make([]problem, 0, len(ie.Errors))
		for _, fe := range ie.Errors {
			// Positions into the error's own canonical echo (Source).
			out = append(out, problem{Severity: "error", Path: fe.Path, Message: fe.Message, Line: fe.Line, Column: fe.Column})
		}
		return out, true
	}
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity {
		return []problem{{Severity: "error", Message: ae.Message}}, true
	}
	return nil, false
}

// locPath turns a 422 location (["body", "definition", "steps", 0, …])
// into a path inside the definition ("steps[0]…"): the editor holds the
// definition, so the request's wrapping is dropped.
func locPath(loc []any) string {
	i := 0
	for i < len(loc) && i < 2 {
		if s, ok := loc[i].(string); ok && (s == "body" || s == "definition" || s == "agent_definition") {
			i++
			continue
		}
		break
	}
	path := ""
	for _, seg := range loc[i:] {
		switch v := seg.(type) {
		case float64:
			path = canonjson.Index(path, int(v))
		case int:
			path = canonjson.Index(path, v)
		case string:
			if n, err := strconv.Atoi(v); err == nil && path != "" && isArrayIndex(v) {
				path = canonjson.Index(path, n)
			} else {
				path = canonjson.Key(path, v)
			}
		default:
			path = canonjson.Key(path, fmt.Sprint(v))
		}
	}
	return path
}

// isArrayIndex: a location segment that is all digits.
func isArrayIndex(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// positioned adds the line and column of p's path (or of its nearest
// ancestor: a missing field points at the object that should hold it).
func positioned(p problem, at canonjson.Positions) problem {
	if at == nil {
		return p
	}
	pos, _ := at.Lookup(p.Path)
	p.Line, p.Column = pos.Line, pos.Column
	return p
}
