package api

import (
	"context"

	"github.com/agentry/agentry/internal/version"
)

// APIVersionResponse answers GET and PUT /version.
type APIVersionResponse struct {
	PinnedVersion    *string  `json:"pinned_version" doc:"The account's sticky pinned version, or null when unpinned."`
	EffectiveVersion string   `json:"effective_version" doc:"The version this request resolved to (header > pin > default)."`
	DefaultVersion   string   `json:"default_version"`
	LatestVersion    string   `json:"latest_version"`
	KnownVersions    []string `json:"known_versions"`
}

// UpdateAPIVersionRequest is the body of PUT /version.
type UpdateAPIVersionRequest struct {
	Version *string `json:"version,omitempty" required:"false" nullable:"true" doc:"A YYYY-MM-DD date to pin the account to, or null to clear the pin."`
}

type versionOutput struct{ Body APIVersionResponse }

type putVersionInput struct{ Body UpdateAPIVersionRequest }

func (s *Server) versionResponse(ctx context.Context, pin string) *versionOutput {
	out := APIVersionResponse{EffectiveVersion: Version(ctx), DefaultVersion: version.Default,
		LatestVersion: version.Latest, KnownVersions: append([]string(nil), version.Known...)}
	if pin != "" {
		out.PinnedVersion = &pin
	}
	return &versionOutput{Body: out}
}

func (s *Server) getVersion(ctx context.Context, _ *struct{}) (*versionOutput, error) {
	pin, err := s.deps.Accounts.APIVersion(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	return s.versionResponse(ctx, pin), nil
}

// putVersion pins the account to a date, stored as given (it snaps to a
// known version when resolved, so a later release is picked up by a pin to
// a future date), or clears it with null.
func (s *Server) putVersion(ctx context.Context, in *putVersionInput) (*versionOutput, error) {
	p := principal(ctx)
	pin := ""
	if in.Body.Version != nil {
		v, err := version.Parse(*in.Body.Version)
		if err != nil {
			return nil, Invalid([]any{"body", "version"}, "Version must be a date in the form YYYY-MM-DD, or null to clear the pin", "value_error")
		}
		pin = v
	}
	if err := s.deps.Accounts.SetAPIVersion(ctx, p.AccountID, pin); err != nil {
		return nil, err
	}
	s.pins.set(p.AccountID, pin)
	return s.versionResponse(ctx, pin), nil
}
