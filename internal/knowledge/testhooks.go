package knowledge

import (
	"context"
	"database/sql"
)

// Hooks for the suites outside the area (isolation, conformance, the
// end-to-end tests) that must set up or inspect what no request can,
// through the area rather than its tables.

// PendingMigrationForTest stores a pending embedding migration with no job
// behind it (it stays cancellable), as StartMigration would before its job
// runs, without StartMigration's checks.
func (s *Service) PendingMigrationForTest(ctx context.Context, m EmbeddingMigration) (EmbeddingMigration, error) {
	return s.repo().createMigration(ctx, m, func(*sql.Tx, *sql.Conn, EmbeddingMigration) error { return nil })
}

// LatestMigrationForTest reads the newest migration stored under the
// account for the source, whether or not the source is the account's
// (ErrNotFound when there is none).
func (s *Service) LatestMigrationForTest(ctx context.Context, accountID, sourceID string) (EmbeddingMigration, error) {
	return s.repo().latestMigration(ctx, accountID, sourceID)
}
