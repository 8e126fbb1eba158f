package client

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The dated API versions this client was built for, oldest first. Its types
// describe the responses of these versions; a later version may change
// shapes the client does not know, which is why an unknown one is refused.
const (
	Version20260701 = "2026-07-01"
	Version20260727 = "2026-07-27"
	// DefaultVersion is what the server answers a request without a pin or header.
	DefaultVersion = Version20260701
	// LatestVersion is the newest version the client knows.
	LatestVersion = Version20260727
)

// KnownVersions lists the versions this client was built for.
func KnownVersions() []string { return []string{Version20260701, Version20260727} }

// VersionError is returned when a Service-Version value is malformed, or is
// a date this client was not built for (unless WithUnknownVersions is set).
type VersionError struct {
	Version string
	Reason  string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s %q: %s", VersionHeader, e.Version, e.Reason)
}

var dateShape = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// checkVersion validates one Service-Version value.
func checkVersion(v string, allowUnknown bool) error {
	if !dateShape.MatchString(v) {
		return &VersionError{Version: v, Reason: "must be a date in the form YYYY-MM-DD"}
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return &VersionError{Version: v, Reason: "is not a calendar date"}
	}
	if !allowUnknown && !slices.Contains(KnownVersions(), v) {
		return &VersionError{Version: v, Reason: "this client was built for " + strings.Join(KnownVersions(), " and ") +
			"; upgrade the client, or set WithUnknownVersions to send it anyway"}
	}
	return nil
}
