package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
	"github.com/spf13/cobra"
)

// Exit codes of the agentry command (documented in docs/cli.md). Scripts
// branch on them, so they never change meaning.
const (
	ExitOK          = 0
	ExitError       = 1  // anything not listed below
	ExitUsage       = 2  // bad flags or arguments, unknown command, unusable --api-version
	ExitAuth        = 3  // 401/403, not logged in, SSO session expired or not configured
	ExitNotFound    = 4  // 404
	ExitValidation  = 5  // 400/422: the server refused the input
	ExitConflict    = 6  // 409
	ExitCredits     = 7  // 402: insufficient credits
	ExitRateLimited = 8  // 429
	ExitServer      = 9  // 5xx
	ExitUnreachable = 10 // the server could not be reached
	ExitTimeout     = 11 // a wait or poll timed out
)

// usageError marks a mistake in how the command was invoked.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// ExitCode maps an error to the process exit status.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ue *usageError
	var ve *client.VersionError
	var pe *client.PayloadError
	if errors.As(err, &pe) {
		// A file that is not JSON is refused input, whether the server or
		// the client noticed: the same status as the server's 422.
		return ExitValidation
	}
	if errors.As(err, &ue) || errors.As(err, &ve) || isCobraUsage(err) {
		return ExitUsage
	}
	if errors.Is(err, sso.ErrNotLoggedIn) || errors.Is(err, sso.ErrLoginRequired) ||
		errors.Is(err, sso.ErrNotConfigured) || errors.Is(err, sso.ErrProfileNotFound) {
		return ExitAuth
	}
	if errors.Is(err, client.ErrPollTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return ExitTimeout
	}
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		switch s := apiErr.StatusCode; {
		case s == 401 || s == 403:
			return ExitAuth
		case s == 404:
			return ExitNotFound
		case s == 400 || s == 422:
			return ExitValidation
		case s == 402:
			return ExitCredits
		case s == 409:
			return ExitConflict
		case s == 429:
			return ExitRateLimited
		case s >= 500:
			return ExitServer
		}
		return ExitError
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, client.ErrStreamDropped) {
		// A stream that could not be resumed: the server stayed out of
		// reach for the whole reconnection window.
		return ExitUnreachable
	}
	return ExitError
}

// isCobraUsage recognises the errors cobra raises itself for unknown
// commands and argument counts; it has no typed errors for them.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs with a usage error.
// rangeArgs is exactArgs for commands whose last arguments are optional.
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}
