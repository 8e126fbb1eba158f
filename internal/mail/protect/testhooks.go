package protect

import "context"

// Test hooks: only tests outside this package call these (they cannot use
// an export_test.go), to seed an account's records without a message.

// RecordRejection stores a discarded message as Reject does, without the
// telemetry.
func (s *Service) RecordRejection(ctx context.Context, r Rejection) (Rejection, error) {
	return s.repo().recordRejection(ctx, r)
}

// SetPaused arms or lifts the account's breaker whatever its backlog;
// changed reports whether it moved.
func (s *Service) SetPaused(ctx context.Context, accountID string, paused bool) (changed bool, err error) {
	return s.repo().setPaused(ctx, accountID, paused)
}
