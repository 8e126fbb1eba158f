// Package fault is the small vocabulary of errors the areas return to say
// why a request cannot be served: something is not found, an input is
// invalid (at which field, and why), the resource's state conflicts with
// the request, the caller may not do it, a bound is reached, and so on.
//
// An area decides which of these an error is and writes its message, where
// the rule lives; internal/api maps each kind to its status and documented
// body in one table (problem in internal/api/errors.go), so a message
// written here is the sentence a client reads, byte for byte. The store's
// ErrNotFound, ErrConflict and ErrInsufficientCredits are this package's
// sentinels, so the store, the areas and the API speak one word.
//
// The kinds and the statuses the API gives them:
//
//	NotFound     404  "<What> not found" ("Not found" for the store's bare sentinel)
//	Invalid      422  a list of {loc, msg, type}, or a documented body of its own
//	BadRequest   400  a sentence
//	Forbidden    403  a sentence
//	Conflict     409  a sentence (also for "the most it may hold" count bounds)
//	Gone         410  a sentence
//	TooLarge     413  a sentence
//	Unsupported  415  a sentence
//	Limit        429  a sentence and Retry-After
//	Unavailable  503  a sentence
//	NoCredits    402  the insufficient-credits body
//
// The sentence a client reads is the fault's Msg (an Item's Msg for
// Invalid). A fault declared without one — an area's sentinel such as
// &fault.Conflict{Err: errors.New("the run has already finished")} —
// reads as the text of the error the area returned, so the area may wrap
// its sentinel with detail (fmt.Errorf("%w: …", ErrX)) and the client
// reads all of it.
//
// An area's own error type (agents.InvalidError, runs.FieldError…) joins
// the vocabulary with an As method that reads it as one of these kinds, so
// the area's callers keep matching its type. When an error's chain holds
// several faults the outermost decides (Outermost), so wrapping a fault in
// another changes the answer on purpose. The store's not-found names no
// resource: Name gives it one ("Agent"), where the caller knows which;
// Referenced makes the not-found of an id the body names a 422 at that
// field.
//
// Errors that are none of these are the server's fault: the API answers
// them with a 500 naming the request id, and logs them.
package fault

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// NotFound means no resource of the caller's account matched: absent and
// another account's alike, so existence never leaks.
type NotFound struct {
	// What names the resource ("Agent", "Memory bank"); empty in the
	// store's bare sentinel, which the area or handler names with Name.
	What string
	// Err is the cause, when there is one (the store's sentinel).
	Err error
}

func (e *NotFound) Error() string {
	if e.What == "" {
		return "not found"
	}
	return e.What + " not found"
}

func (e *NotFound) Unwrap() error { return e.Err }

// Is makes every not-found match ErrNotFound (and so store.ErrNotFound).
func (e *NotFound) Is(target error) bool { return target == ErrNotFound }

// ErrNotFound is the bare not-found the store returns (store.ErrNotFound).
var ErrNotFound error = &NotFound{}

// NotFoundOf returns the not-found of a named resource.
func NotFoundOf(what string) *NotFound { return &NotFound{What: what} }

// Name gives a bare not-found in err the resource it is about; any other
// error, a named not-found among them, is returned as it is. It is what an
// area (or a handler returning an area's store-level not-found unchanged)
// uses to say which resource was missing.
func Name(err error, what string) error {
	if nf, ok := Outermost(err).(*NotFound); ok && nf.What == "" {
		return &NotFound{What: what, Err: err}
	}
	return err
}

// Outermost returns the first error of the vocabulary in err's chain,
// outermost first (depth first through joins), or nil when there is none.
// It decides how err is answered, so an area can wrap a fault in another
// to answer differently: a refusal wrapping the field error it came from,
// a named not-found wrapping the store's. An error type of an area that is
// one of these kinds says so with an As method.
func Outermost(err error) error {
	seen := 0
	var walk func(error) error
	walk = func(e error) error {
		if e == nil || seen >= 64 {
			return nil
		}
		seen++
		if f := kindOf(e); f != nil {
			return f
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			return walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				if f := walk(x); f != nil {
					return f
				}
			}
		}
		return nil
	}
	return walk(err)
}

// kindOf is e itself when it is of the vocabulary, else what its As
// method reads it as, else nil; it does not look at what e wraps.
func kindOf(e error) error {
	switch e.(type) {
	case *NotFound, *Invalid, *BadRequest, *Forbidden, *Conflict, *Gone, *TooLarge, *Unsupported, *Limit, *Unavailable, *NoCredits:
		return e
	}
	a, ok := e.(interface{ As(any) bool })
	if !ok {
		return nil
	}
	if f := as[*NotFound](a); f != nil {
		return f
	}
	if f := as[*Invalid](a); f != nil {
		return f
	}
	if f := as[*BadRequest](a); f != nil {
		return f
	}
	if f := as[*Forbidden](a); f != nil {
		return f
	}
	if f := as[*Conflict](a); f != nil {
		return f
	}
	if f := as[*Gone](a); f != nil {
		return f
	}
	if f := as[*TooLarge](a); f != nil {
		return f
	}
	if f := as[*Unsupported](a); f != nil {
		return f
	}
	if f := as[*Limit](a); f != nil {
		return f
	}
	if f := as[*Unavailable](a); f != nil {
		return f
	}
	if f := as[*NoCredits](a); f != nil {
		return f
	}
	return nil
}

func as[T error](a interface{ As(any) bool }) error {
	var t T
	if a.As(&t) {
		return t
	}
	return nil
}

// Item is one invalid input: where (loc, as the contract's 422 lists it:
// "body", "query", "path" or "header", then the field and any index), why
// (msg) and the machine-readable kind (type, "value_error" unless a more
// precise one applies).
type Item struct {
	Loc  []any
	Msg  string
	Type string
}

// Invalid means the request's input breaks a rule of the area.
type Invalid struct {
	Items []Item
	// Body, when set, is sent as the whole 422 body in place of
	// {"detail": Items}: for an operation the contract gives its own error
	// body (the agent import's AgentDefinitionImportErrorResponse).
	Body any
	// Err is the cause, when there is one, so errors.Is on an area's
	// sentinel keeps working.
	Err error
}

func (e *Invalid) Error() string {
	msgs := make([]string, 0, len(e.Items))
	for _, it := range e.Items {
		if it.Msg != "" {
			msgs = append(msgs, it.Msg)
		}
	}
	if len(msgs) == 0 && e.Err != nil {
		return e.Err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e *Invalid) Unwrap() error { return e.Err }

// InvalidField is one body field's problem, of type value_error.
func InvalidField(field, msg string) *Invalid {
	return InvalidAt([]any{"body", field}, msg, "value_error")
}

// InvalidAt is one problem at loc.
func InvalidAt(loc []any, msg, typ string) *Invalid {
	return &Invalid{Items: []Item{{Loc: loc, Msg: msg, Type: typ}}}
}

// Because returns a copy of e whose cause is err.
func (e *Invalid) Because(err error) *Invalid {
	c := *e
	c.Err = err
	return &c
}

// text is a fault's sentence: its Msg, else its cause's text.
func text(msg string, err error) string {
	if msg == "" && err != nil {
		return err.Error()
	}
	return msg
}

// BadRequest means the request, well-formed, cannot apply to the resource
// as it is (an upload to an agent that takes none, a step not available).
type BadRequest struct {
	Msg string
	Err error
}

func (e *BadRequest) Error() string { return text(e.Msg, e.Err) }
func (e *BadRequest) Unwrap() error { return e.Err }

// Forbidden means the caller's role does not allow the request.
type Forbidden struct {
	Msg string
	Err error
}

func (e *Forbidden) Error() string { return text(e.Msg, e.Err) }
func (e *Forbidden) Unwrap() error { return e.Err }

// Conflict means the resource's state refuses the request: already
// finished, a name taken, the most it may hold reached.
type Conflict struct {
	Msg string
	Err error
}

func (e *Conflict) Error() string {
	if e.Msg == "" && e.Err == nil {
		return "conflict"
	}
	return text(e.Msg, e.Err)
}

func (e *Conflict) Unwrap() error { return e.Err }

// ErrConflict is the bare conflict the store returns when a uniqueness or
// state rule refused a write (store.ErrConflict); an area that knows the
// rule returns a Conflict with its sentence instead.
var ErrConflict error = &Conflict{}

// Gone means the resource existed and has expired.
type Gone struct {
	Msg string
	Err error
}

func (e *Gone) Error() string { return text(e.Msg, e.Err) }
func (e *Gone) Unwrap() error { return e.Err }

// TooLarge means an input exceeds a size bound.
type TooLarge struct {
	Msg string
	Err error
}

func (e *TooLarge) Error() string { return text(e.Msg, e.Err) }
func (e *TooLarge) Unwrap() error { return e.Err }

// Unsupported means the input's media type is not one the area reads.
type Unsupported struct {
	Msg string
	Err error
}

func (e *Unsupported) Error() string { return text(e.Msg, e.Err) }
func (e *Unsupported) Unwrap() error { return e.Err }

// Limit means a rate bound is reached; RetryAfter says when to try again.
type Limit struct {
	Msg        string
	RetryAfter time.Duration
}

func (e *Limit) Error() string { return e.Msg }

// Unavailable means the server is not set up to serve the request.
type Unavailable struct {
	Msg string
	Err error
}

func (e *Unavailable) Error() string { return text(e.Msg, e.Err) }
func (e *Unavailable) Unwrap() error { return e.Err }

// NoCredits means the account's balance does not cover the request. The
// bare sentinel (ErrNoCredits: a debit would go below zero) says no more;
// a refusal made before any work gives the estimate and the balance.
type NoCredits struct {
	AccountID string
	// Estimate is the up-front estimate in credits (0 when the request
	// only needs a positive balance, as a run start does).
	Estimate float64
	Balance  float64
	// Err is the cause, when there is one.
	Err error
}

func (e *NoCredits) Error() string {
	if e.AccountID == "" && e.Estimate == 0 && e.Balance == 0 {
		return "insufficient credits"
	}
	if e.Estimate > 0 {
		return "the request is estimated up front at " + formatCredits(e.Estimate) + " credits and the account has " + formatCredits(e.Balance)
	}
	return "the account has " + formatCredits(e.Balance) + " credits and needs a positive balance to start"
}

func (e *NoCredits) Unwrap() error { return e.Err }

// Is makes every NoCredits match ErrNoCredits.
func (e *NoCredits) Is(target error) bool { return target == ErrNoCredits }

// Figures reports whether e carries an estimate and a balance (a refusal
// made up front) rather than being the bare sentinel.
func (e *NoCredits) Figures() bool { return e != ErrNoCredits }

// ErrNoCredits is the bare insufficient-credits error
// (store.ErrInsufficientCredits, llm.ErrInsufficientCredits).
var ErrNoCredits error = &NoCredits{}

func formatCredits(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }

// FieldSentinel is an area's sentinel for one invalid input at loc whose
// sentence is the text of the error as the area returns it (text alone,
// or wrapped with detail).
func FieldSentinel(loc []any, typ, text string) error {
	return &Invalid{Items: []Item{{Loc: loc, Type: typ}}, Err: errors.New(text)}
}

// UploadTooLarge is the refusal of an uploaded file over limit bytes, the
// same sentence for every upload operation (agent uploads, knowledge
// files), naming the limit; err is the cause, if any.
func UploadTooLarge(limit int64, err error) *TooLarge {
	return &TooLarge{Msg: "The file is larger than the upload limit of " + humanBytes(limit), Err: err}
}

func humanBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Referenced turns a not-found of a resource the request body names by id
// into the body's fault: an Invalid at field saying msg, since the missing
// thing is the caller's input, not the resource of the path. Any other
// error is returned as it is.
func Referenced(err error, field, msg string) error {
	if _, ok := Outermost(err).(*NotFound); ok {
		return InvalidField(field, msg).Because(err)
	}
	return err
}
