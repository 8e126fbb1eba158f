// Package version owns the dated API versions: which exist, how a request's
// Service-Version header and an account's pin resolve to one, and which
// behaviours each version switches on.
package version

import (
	"errors"
	"regexp"
	"time"
)

// Header is the request header that opts a request into a dated version.
const Header = "Service-Version"

// Known dated versions, oldest first. A new dated change adds its date here.
var Known = []string{"2026-07-01", "2026-07-27"}

const (
	// Default is the baseline for a header-less request from an unpinned account.
	Default = "2026-07-01"
	// Latest is the newest version this server knows.
	Latest = "2026-07-27"
	// StrictEnvelope is the version from which undeclared query parameters are
	// refused and every list answers the {data, pagination} envelope.
	StrictEnvelope = "2026-07-27"
)

var shape = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// ErrMalformed is returned for a value that is not a real YYYY-MM-DD date.
var ErrMalformed = errors.New("must be a date in the form YYYY-MM-DD")

// Parse checks that v is a real calendar date in the form YYYY-MM-DD.
func Parse(v string) (string, error) {
	if !shape.MatchString(v) {
		return "", ErrMalformed
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return "", ErrMalformed
	}
	return v, nil
}

// Snap maps any valid date onto a known version: the newest known version on
// or before it, or the default when the date predates every known version.
// ISO dates compare correctly as strings.
func Snap(date string) string {
	out := Default
	for _, k := range Known {
		if k <= date {
			out = k
		}
	}
	return out
}

// Resolve applies the order header, then account pin, then default. header
// and pin are raw values ("" when absent); header must already be validated.
func Resolve(header, pin string) string {
	switch {
	case header != "":
		return Snap(header)
	case pin != "":
		return Snap(pin)
	default:
		return Default
	}
}

// AtLeast reports whether the resolved version v includes the change released on date.
func AtLeast(v, date string) bool { return v >= date }

// Strict reports whether v refuses undeclared query parameters and answers
// list endpoints with the canonical envelope.
func Strict(v string) bool { return AtLeast(v, StrictEnvelope) }
