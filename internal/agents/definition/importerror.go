package definition

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
	"github.com/agentry/agentry/internal/fault"
)

// ImportErrorCode is the constant `error` of the 422 body.
const ImportErrorCode = "invalid_agent_definition"

// FieldError is an ImportFieldErrorModel: one problem with its position in
// ImportError.Source.
type FieldError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ImportError is the 422 body of POST /agents, PUT /agents/{id} and
// POST /agents/preview-import (AgentDefinitionImportErrorResponse). Marshal
// it as is.
//
// Positions refer to Source. When the payload parsed, Source is its
// canonical echo (sorted keys, two-space indent) and every position is that
// of the offending value there, or of its nearest enclosing value when the
// value is missing. When the payload is not valid JSON there is no
// canonical form: Source is the submitted text itself and the single error
// points at the offending character in it.
type ImportError struct {
	Code    string       `json:"error"`
	Message string       `json:"message"`
	Errors  []FieldError `json:"errors"`
	Source  string       `json:"source"`
	// Problems are the full findings (errors, then nothing else) with codes,
	// for logs and tests; not part of the response body.
	Problems Problems `json:"-"`
}

func (e *ImportError) Error() string {
	if len(e.Errors) == 0 {
		return e.Message
	}
	first := e.Errors[0]
	where := first.Path
	if where == "" {
		where = "(root)"
	}
	return fmt.Sprintf("%s: %s (line %d, column %d): %s", e.Message, where, first.Line, first.Column, first.Message)
}

// AsImportError unwraps an *ImportError from err.
// As reads the import error as the fault vocabulary's Invalid whose body
// is the error itself: the contract's AgentDefinitionImportErrorResponse,
// sent at the top level rather than under detail.
func (e *ImportError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = &fault.Invalid{Body: e}
	}
	return ok
}

func AsImportError(err error) (*ImportError, bool) {
	var ie *ImportError
	ok := errors.As(err, &ie)
	return ie, ok
}

func newImportError(errs Problems, source string) *ImportError {
	ie := &ImportError{Code: ImportErrorCode, Source: source, Problems: errs, Errors: make([]FieldError, len(errs))}
	for i, p := range errs {
		ie.Errors[i] = FieldError{Line: p.Line, Column: p.Column, Path: p.Path, Message: p.Message}
	}
	n := len(errs)
	ie.Message = fmt.Sprintf("agent_definition is invalid: %d error%s", n, map[bool]string{true: "", false: "s"}[n == 1])
	return ie
}

// sourceText makes the raw payload printable: each invalid UTF-8 byte
// becomes U+FFFD, one for one, so columns counted in the raw bytes (one per
// code point, one per stray byte) stay right in the text.
func sourceText(raw []byte) string {
	if utf8.Valid(raw) {
		return string(raw)
	}
	var b strings.Builder
	for len(raw) > 0 {
		r, size := utf8.DecodeRune(raw)
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(raw[:size])
		}
		raw = raw[size:]
	}
	return b.String()
}

func syntaxImportError(raw []byte, se *canonjson.SyntaxError) *ImportError {
	p := Problem{Severity: SeverityError, Code: CodeInvalidJSON, Path: "", Message: se.Msg, Line: se.Line, Column: se.Column}
	ie := newImportError(Problems{p}, sourceText(raw))
	ie.Message = "agent_definition is not valid JSON"
	return ie
}
