package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/fault"
	"github.com/danielgtaylor/huma/v2"
)

// Error is every error response of the API. Its body is {"detail": …}: a
// sentence for most statuses, a list of ValidationItem for 422, and an
// InsufficientCreditsDetail for 402 — the shapes the contract documents.
type Error struct {
	Status  int         `json:"-"`
	Detail  any         `json:"detail"`
	Headers http.Header `json:"-"`
}

func (e *Error) Error() string {
	if s, ok := e.Detail.(string); ok {
		return s
	}
	b, _ := json.Marshal(e.Detail)
	return string(b)
}

// GetStatus lets huma write the status.
func (e *Error) GetStatus() int { return e.Status }

// GetHeaders lets huma copy headers such as WWW-Authenticate or Retry-After.
func (e *Error) GetHeaders() http.Header { return e.Headers }

// ValidationItem is one FastAPI-shaped validation problem.
type ValidationItem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// InsufficientCreditsDetail is the detail of a 402.
type InsufficientCreditsDetail struct {
	Error     string `json:"error"`
	Message   string `json:"message"`
	AccountID string `json:"account_id"`
}

// Fail returns an error with a sentence for detail.
func Fail(status int, format string, args ...any) *Error {
	return &Error{Status: status, Detail: fmt.Sprintf(format, args...)}
}

// NotFound is the answer for a missing resource and for another account's
// resource alike, so existence never leaks.
func NotFound(what string) *Error { return Fail(http.StatusNotFound, "%s not found", what) }

// Invalid returns a 422 for one location.
func Invalid(loc []any, msg, typ string) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Detail: []ValidationItem{{Loc: loc, Msg: msg, Type: typ}}}
}

// InsufficientCredits returns the 402 for an account.
func InsufficientCredits(accountID string) *Error {
	return &Error{Status: http.StatusPaymentRequired, Detail: InsufficientCreditsDetail{
		Error: "insufficient_credits", AccountID: accountID,
		Message: "The account has no credits left for this request. Add credits and try again.",
	}}
}

// insufficientForEstimate is the 402 of a request refused before any work
// because the balance does not cover its up-front estimate: the message
// gives both figures, so the user knows how much to add.
func insufficientForEstimate(accountID string, e *fault.NoCredits) *Error {
	msg := fmt.Sprintf("Refused before starting: the up-front estimate is %s credits and the account's balance is %s credits. Add credits and try again.",
		strconv.FormatFloat(e.Estimate, 'f', -1, 64), strconv.FormatFloat(e.Balance, 'f', -1, 64))
	if e.Estimate <= 0 {
		msg = fmt.Sprintf("Refused before starting: the account's balance is %s credits, and starting needs a positive balance. Add credits and try again.",
			strconv.FormatFloat(e.Balance, 'f', -1, 64))
	}
	return &Error{Status: http.StatusPaymentRequired, Detail: InsufficientCreditsDetail{
		Error: "insufficient_credits", AccountID: accountID, Message: msg}}
}

// Unauthenticated returns a 401 with the challenge clients expect.
func Unauthenticated(msg string) *Error {
	h := http.Header{}
	h.Set("WWW-Authenticate", `Bearer realm="agentry", error="invalid_token"`)
	return &Error{Status: http.StatusUnauthorized, Detail: msg, Headers: h}
}

type requestIDKey struct{}

// installErrorModel makes huma produce our shapes for every error it raises
// itself (validation, body size, parse failures) and maps the domain errors
// handlers return to their statuses, so handlers can simply return them.
func installErrorModel() {
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		var reqCtx context.Context = context.Background()
		if ctx != nil {
			reqCtx = ctx.Context()
		}
		return newError(reqCtx, status, msg, errs...)
	}
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return newError(context.Background(), status, msg, errs...)
	}
}

func newError(ctx context.Context, status int, msg string, errs ...error) huma.StatusError {
	for _, e := range errs {
		var ours *Error
		if errors.As(e, &ours) {
			return ours
		}
	}
	if status == http.StatusInternalServerError {
		for _, e := range errs {
			if mapped := problem(ctx, e); mapped != nil {
				return mapped
			}
		}
		id, _ := ctx.Value(requestIDKey{}).(string)
		slog.ErrorContext(ctx, "request failed", "request_id", id, "err", errors.Join(errs...))
		return Fail(http.StatusInternalServerError, "Internal server error (request id %s)", id)
	}
	if status == http.StatusBadRequest || status == http.StatusUnprocessableEntity {
		// huma raises 400 for bodies it cannot parse; the contract answers
		// every malformed input with a 422 detail list.
		items := validationItems(msg, errs)
		return &Error{Status: http.StatusUnprocessableEntity, Detail: items}
	}
	if status == http.StatusRequestEntityTooLarge {
		return Fail(status, "Request body is too large")
	}
	if status == http.StatusUnsupportedMediaType {
		return Fail(status, "Unsupported media type: send the body as JSON with Content-Type: application/json")
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return Fail(status, "%s", msg)
}

// problem is the one table from the fault vocabulary the areas speak to
// the API's statuses and documented bodies. Handlers return an area's error
// as it is; huma hands it here (through newError) and the client reads the
// area's own sentence. The outermost fault in err's chain decides (see
// fault.Outermost). nil means err is none of the vocabulary: a 500.
func problem(ctx context.Context, err error) huma.StatusError {
	// say is a fault's sentence: its own, else the text of the error as
	// the area returned it (a sentinel wrapped with detail).
	say := func(msg string) string {
		if msg == "" {
			return err.Error()
		}
		return msg
	}
	switch f := fault.Outermost(err).(type) {
	case *fault.Invalid:
		if f.Body != nil {
			// The operation's own documented 422 body, at the top level.
			return documentedInvalid{f}
		}
		items := make([]ValidationItem, len(f.Items))
		for i, it := range f.Items {
			items[i] = ValidationItem{Loc: it.Loc, Msg: say(it.Msg), Type: it.Type}
		}
		return &Error{Status: http.StatusUnprocessableEntity, Detail: items}
	case *fault.NotFound:
		if f.What == "" {
			return Fail(http.StatusNotFound, "Not found")
		}
		return NotFound(f.What)
	case *fault.BadRequest:
		return Fail(http.StatusBadRequest, "%s", say(f.Msg))
	case *fault.Forbidden:
		return Fail(http.StatusForbidden, "%s", say(f.Msg))
	case *fault.Conflict:
		if f == fault.ErrConflict {
			// The store's bare conflict: a rule no area named.
			return Fail(http.StatusConflict, "Conflict")
		}
		return Fail(http.StatusConflict, "%s", say(f.Msg))
	case *fault.Gone:
		return Fail(http.StatusGone, "%s", say(f.Msg))
	case *fault.TooLarge:
		return Fail(http.StatusRequestEntityTooLarge, "%s", say(f.Msg))
	case *fault.Unsupported:
		return Fail(http.StatusUnsupportedMediaType, "%s", say(f.Msg))
	case *fault.Limit:
		e := Fail(http.StatusTooManyRequests, "%s", say(f.Msg))
		e.Headers = http.Header{"Retry-After": {strconv.Itoa(int(math.Max(1, math.Ceil(f.RetryAfter.Seconds()))))}}
		return e
	case *fault.Unavailable:
		return Fail(http.StatusServiceUnavailable, "%s", say(f.Msg))
	case *fault.NoCredits:
		p, _ := auth.FromContext(ctx)
		if f.Figures() {
			return insufficientForEstimate(p.AccountID, f)
		}
		return InsufficientCredits(p.AccountID)
	}
	if errors.Is(err, context.Canceled) {
		return Fail(499, "Client closed request")
	}
	return nil
}

// respond is err as the client reads it: the vocabulary's status and body
// when err is a fault, else err unchanged. For the few places that write
// an error themselves (a stream's error event) rather than return it.
func respond(ctx context.Context, err error) error {
	if e := problem(ctx, err); e != nil {
		return e
	}
	return err
}

// documentedInvalid is a 422 whose body the contract documents for its
// operation alone (fault.Invalid.Body), sent at the top level rather than
// under detail.
type documentedInvalid struct{ *fault.Invalid }

func (e documentedInvalid) GetStatus() int { return http.StatusUnprocessableEntity }

// MarshalJSON writes the body as huma would write the value itself.
func (e documentedInvalid) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(e.Body)
	return bytes.TrimRight(b.Bytes(), "\n"), err
}

func validationItems(msg string, errs []error) []ValidationItem {
	var items []ValidationItem
	for _, e := range errs {
		var d *huma.ErrorDetail
		if !errors.As(e, &d) {
			items = append(items, ValidationItem{Loc: []any{"body"}, Msg: e.Error(), Type: "value_error"})
			continue
		}
		items = append(items, fromDetail(d))
	}
	if len(items) == 0 {
		if msg == "" {
			msg = "Invalid request"
		}
		items = append(items, ValidationItem{Loc: []any{"body"}, Msg: msg, Type: classify(msg)})
	}
	return items
}

var missingProperty = regexp.MustCompile(`expected required property (\S+) to be present`)

// fromDetail turns a huma location ("body.items[0].name", "path.agent_id")
// into a FastAPI loc list and names the failure with pydantic's type names.
func fromDetail(d *huma.ErrorDetail) ValidationItem {
	loc := splitLocation(d.Location)
	msg := d.Message
	if m := missingProperty.FindStringSubmatch(msg); m != nil {
		loc = append(loc, m[1])
		msg = "Field required"
	}
	if len(loc) > 0 && loc[0] == "headers" {
		loc[0] = "header"
	}
	return ValidationItem{Loc: loc, Msg: msg, Type: classify(d.Message)}
}

func splitLocation(s string) []any {
	loc := []any{}
	for _, part := range strings.Split(s, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				loc = append(loc, part)
				break
			}
			if i > 0 {
				loc = append(loc, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				loc = append(loc, part[i:])
				break
			}
			idx := part[i+1 : i+j]
			if n, err := strconv.Atoi(idx); err == nil {
				loc = append(loc, n)
			} else {
				loc = append(loc, idx)
			}
			part = part[i+j+1:]
		}
	}
	if len(loc) == 0 {
		loc = append(loc, "body")
	}
	return loc
}

// classify maps huma's messages onto the error type names clients of the
// contract switch on.
func classify(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "required") && (strings.Contains(m, "missing") || strings.Contains(m, "to be present")):
		return "missing"
	case strings.Contains(m, "uuid"):
		return "uuid_parsing"
	case strings.Contains(m, "expected integer"), strings.Contains(m, "invalid integer"):
		return "int_parsing"
	case strings.Contains(m, "expected number"), strings.Contains(m, "invalid float"):
		return "float_parsing"
	case strings.Contains(m, "expected boolean"), strings.Contains(m, "invalid bool"):
		return "bool_parsing"
	case strings.Contains(m, "one of"):
		return "enum"
	case strings.Contains(m, "pattern"):
		return "string_pattern_mismatch"
	case strings.Contains(m, "length >="):
		return "string_too_short"
	case strings.Contains(m, "length <="):
		return "string_too_long"
	case strings.Contains(m, "number >="), strings.Contains(m, "number >"):
		return "greater_than_equal"
	case strings.Contains(m, "number <="), strings.Contains(m, "number <"):
		return "less_than_equal"
	case strings.Contains(m, "unexpected property"), strings.Contains(m, "unknown query parameter"):
		return "extra_forbidden"
	case strings.Contains(m, "expected string"):
		return "string_type"
	case strings.Contains(m, "expected object"):
		return "dict_type"
	case strings.Contains(m, "expected array"):
		return "list_type"
	case strings.Contains(m, "unmarshal"), strings.Contains(m, "json"), strings.Contains(m, "unexpected end"), strings.Contains(m, "invalid character"):
		return "json_invalid"
	}
	return "value_error"
}
