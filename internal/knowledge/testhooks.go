package knowledge

import (
	"context"
	"database/sql"

	"github.com/agentry/agentry/internal/store"
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

// Rows is the area's repository, for the tests outside this package that
// seed what no request can (contents, chunks in bulk, at chosen versions)
// or read back what a request kept. Nothing but tests may use it:
// everything else goes through the Service.
type Rows struct{ repo }

// TestRows returns the repository on db, for tests.
func TestRows(db *store.DB) Rows { return Rows{repo{db}} }
