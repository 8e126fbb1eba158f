package exports

import (
	"context"
	"database/sql"
)

// Hooks for the suites outside the area (isolation, conformance, the
// end-to-end tests) that must set up or inspect what no request can,
// through the area rather than its table.

// PendingForTest stores a pending export with no job behind it (it stays
// cancellable), as Create would before its job runs, without Create's
// checks.
func (s *Service) PendingForTest(ctx context.Context, e SourceExport) (SourceExport, error) {
	return s.repo.create(ctx, e, func(*sql.Tx, *sql.Conn, SourceExport) error { return nil })
}

// CountForTest counts the live exports stored under the account for the
// source, whether or not the source is the account's.
func (s *Service) CountForTest(ctx context.Context, accountID, sourceID string) (int, error) {
	_, n, err := s.repo.list(ctx, accountID, sourceID, 0, 1)
	return n, err
}
