package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Sentinels matched by errors.Is against any API error of that status.
var (
	ErrUnauthorized       = errors.New("unauthorized")         // 401
	ErrPaymentRequired    = errors.New("insufficient credits") // 402
	ErrForbidden          = errors.New("forbidden")            // 403
	ErrNotFound           = errors.New("not found")            // 404
	ErrConflict           = errors.New("conflict")             // 409
	ErrTooLarge           = errors.New("request too large")    // 413
	ErrUnprocessable      = errors.New("invalid request")      // 422
	ErrRateLimited        = errors.New("rate limited")         // 429
	ErrServiceUnavailable = errors.New("service unavailable")  // 502, 503, 504
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// APIError is every error response of the API: its status, its body, and
// the sentence of a {"detail": "…"} body. The more specific errors below
// wrap one, so errors.As(err, &apiErr) matches them all.
type APIError struct {
	StatusCode int
	Method     string
	URL        string
	Header     http.Header
	Body       []byte // the raw body (at most 1 MiB)
	Message    string // detail when it is a sentence, else a summary
	RequestID  string // X-Request-Id, to quote in a bug report
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.StatusCode, e.Message)
}

// Is matches the status sentinels (ErrNotFound, …).
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrPaymentRequired:
		return e.StatusCode == http.StatusPaymentRequired
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrTooLarge:
		return e.StatusCode == http.StatusRequestEntityTooLarge
	case ErrUnprocessable:
		return e.StatusCode == http.StatusUnprocessableEntity
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServiceUnavailable:
		return e.StatusCode == http.StatusBadGateway || e.StatusCode == http.StatusServiceUnavailable || e.StatusCode == http.StatusGatewayTimeout
	}
	return false
}

// ValidationItem is one problem of a 422: where (loc, e.g. ["body",
// "version"]), what, and a machine-readable type.
type ValidationItem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// Field is the location joined with dots ("body.version", "query.limit").
func (v ValidationItem) Field() string {
	parts := make([]string, len(v.Loc))
	for i, p := range v.Loc {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, ".")
}

// ValidationError is a 422 whose detail lists the problems.
type ValidationError struct {
	*APIError
	Items []ValidationItem
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Items))
	for i, it := range e.Items {
		msgs[i] = it.Field() + ": " + it.Msg
	}
	return fmt.Sprintf("%s %s: %d validation failed: %s", e.Method, e.URL, e.StatusCode, strings.Join(msgs, "; "))
}

func (e *ValidationError) Unwrap() error { return e.APIError }

// InsufficientCreditsError is a 402: the account has no credits left.
type InsufficientCreditsError struct {
	*APIError
	Code      string // "insufficient_credits"
	AccountID string
}

func (e *InsufficientCreditsError) Error() string {
	return fmt.Sprintf("%s %s: %d %s (account %s)", e.Method, e.URL, e.StatusCode, e.Message, e.AccountID)
}

func (e *InsufficientCreditsError) Unwrap() error { return e.APIError }

// ImportFieldError is one problem of an agent definition import, at a
// 1-based line and column of ImportError.Source.
type ImportFieldError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ImportError is a 422 AgentDefinitionImportErrorResponse: the submitted
// agent definition is invalid. Source is the canonical pretty-printed echo
// of the payload the positions refer to.
type ImportError struct {
	*APIError
	Code   string // "invalid_agent_definition"
	Errors []ImportFieldError
	Source string
}

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.URL, e.StatusCode, e.Message)
	for _, fe := range e.Errors {
		fmt.Fprintf(&b, "; line %d column %d (%s): %s", fe.Line, fe.Column, fe.Path, fe.Message)
	}
	return b.String()
}

func (e *ImportError) Unwrap() error { return e.APIError }

// Excerpt shows the source lines around a field error with a caret under
// its column, the way a compiler points at a mistake.
func (e *ImportError) Excerpt(fe ImportFieldError, around int) string {
	lines := strings.Split(e.Source, "\n")
	if fe.Line < 1 || fe.Line > len(lines) {
		return ""
	}
	var b strings.Builder
	from, to := max(1, fe.Line-around), min(len(lines), fe.Line+around)
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "%5d | %s\n", n, lines[n-1])
		if n == fe.Line {
			fmt.Fprintf(&b, "      | %s^ %s\n", strings.Repeat(" ", max(0, fe.Column-1)), fe.Message)
		}
	}
	return b.String()
}

// decodeError reads an error response into the most specific error type
// its body fits; a body of an unexpected shape is still an *APIError.
func decodeError(req *http.Request, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	base := &APIError{StatusCode: resp.StatusCode, Method: req.Method, URL: req.URL.Redacted(),
		Header: resp.Header.Clone(), Body: body, RequestID: resp.Header.Get("X-Request-Id")}
	base.Message = http.StatusText(resp.StatusCode)

	var env struct {
		Detail json.RawMessage `json:"detail"`
		// AgentDefinitionImportErrorResponse is a top-level object.
		Error   string             `json:"error"`
		Message string             `json:"message"`
		Errors  []ImportFieldError `json:"errors"`
		Source  *string            `json:"source"`
	}
	if json.Unmarshal(body, &env) != nil {
		if s := strings.TrimSpace(string(body)); s != "" && len(s) < 300 {
			base.Message = s
		}
		return base
	}
	if env.Error == "invalid_agent_definition" || (env.Source != nil && env.Errors != nil) {
		base.Message = env.Message
		ie := &ImportError{APIError: base, Code: env.Error, Errors: env.Errors}
		if env.Source != nil {
			ie.Source = *env.Source
		}
		return ie
	}
	detail := bytes.TrimSpace(env.Detail)
	switch {
	case len(detail) == 0:
		if env.Message != "" {
			base.Message = env.Message
		}
	case detail[0] == '"':
		_ = json.Unmarshal(detail, &base.Message)
	case detail[0] == '[':
		var items []ValidationItem
		if json.Unmarshal(detail, &items) == nil {
			base.Message = "validation failed"
			return &ValidationError{APIError: base, Items: items}
		}
	case detail[0] == '{':
		var d struct {
			Error     string `json:"error"`
			Message   string `json:"message"`
			AccountID string `json:"account_id"`
		}
		if json.Unmarshal(detail, &d) == nil {
			if d.Message != "" {
				base.Message = d.Message
			}
			if d.Error == "insufficient_credits" || resp.StatusCode == http.StatusPaymentRequired {
				return &InsufficientCreditsError{APIError: base, Code: d.Error, AccountID: d.AccountID}
			}
		}
	}
	return base
}
