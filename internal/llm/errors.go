package llm

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/fault"
)

// Sentinel errors callers branch on.
var (
	// ErrInsufficientCredits is returned by Metered (from the Meter) before
	// any model is called; the API layer answers 402. It is the fault
	// vocabulary's NoCredits sentinel (the store's ErrInsufficientCredits too).
	ErrInsufficientCredits = fault.ErrNoCredits
	// ErrUnknownModel: the model id is not in the catalog or has no route.
	ErrUnknownModel = errors.New("unknown model")
	// ErrProviderNotConfigured: the model is known but nothing serves it
	// (e.g. no OPENAI_API_KEY and no providers file entry).
	ErrProviderNotConfigured = errors.New("no provider configured")
	// ErrUnsupported: the backend cannot do what was asked (embeddings on
	// Anthropic, images on a text-only model…).
	ErrUnsupported = errors.New("not supported by this provider")
	// ErrToolRoundsExceeded: the tool loop hit its round limit and the final
	// forced answer still asked for tools.
	ErrToolRoundsExceeded = errors.New("tool call rounds exceeded")
)

// APIError is an error answer from a model endpoint, normalised across
// providers so that retry and the API layer treat them alike.
type APIError struct {
	Provider   string
	StatusCode int
	Type       string // provider error type/code, e.g. rate_limit_error
	Message    string
	// RetryAfter is the server-requested wait (Retry-After or
	// retry-after-ms), zero when absent.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "request failed"
	}
	if e.Type != "" {
		return fmt.Sprintf("%s: HTTP %d %s: %s", e.Provider, e.StatusCode, e.Type, msg)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.StatusCode, msg)
}

// Retryable reports whether the same request may succeed later: rate limits,
// timeouts answered by the server, conflicts from load balancers and 5xx
// (including Anthropic's 529 "overloaded").
func (e *APIError) Retryable() bool {
	switch e.StatusCode {
	case 408, 409, 429:
		return true
	}
	return e.StatusCode >= 500
}
