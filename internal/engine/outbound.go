package engine

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/telemetry"
)

// webhookPolicy governs outbound requests of steps. By default private,
// loopback, link-local and other non-public addresses are refused, checked
// on the address actually dialled, so a hostname that resolves to an
// internal address (DNS rebinding included) is refused too.
type webhookPolicy struct {
	allowPrivate bool
	once         sync.Once
	c            *http.Client
}

// ErrForbiddenAddress is a request aimed at a non-public address.
var ErrForbiddenAddress = outbound.ErrForbiddenAddress

func (p *webhookPolicy) client() *http.Client {
	// Requests carry the run's traceparent (telemetry.Transport).
	p.once.Do(func() { p.c = telemetry.Client(outbound.Policy{AllowPrivate: p.allowPrivate}.Client()) })
	return p.c
}

// transientError marks a failure worth another attempt.
type transientError struct{ error }

func (t transientError) Unwrap() error { return t.error }

// transient reports whether a step failure may pass on a later attempt:
// provider 5xx/429 after the adapter's own retries, webhook 5xx, network
// timeouts. Bad configuration, missing references, refused addresses and
// exhausted credits are not.
func transient(err error) bool {
	var te transientError
	if errors.As(err, &te) {
		return true
	}
	if errors.Is(err, ErrForbiddenAddress) || errors.Is(err, outbound.ErrSecretHost) || errors.Is(err, ErrMissingReference) || errors.Is(err, llm.ErrInsufficientCredits) ||
		errors.Is(err, context.Canceled) {
		return false
	}
	var api *llm.APIError
	if errors.As(err, &api) {
		return api.Retryable()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return false
}
