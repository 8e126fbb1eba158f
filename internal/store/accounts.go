package store

import (
	"context"
	"database/sql"

	"github.com/google/uuid"
)

// The accounts, users and memberships are the accounts area's
// (internal/accounts/directory). What stays here is shared: the ids every
// table uses, and the account row's lock that other areas take in their
// own transactions (LockAccount).

// NewID returns a UUIDv7: time-ordered, so ids sort by creation.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// lockAccountRow takes the account row's lock until tx ends, with a
// no-op write (PostgreSQL; SQLite has one writer anyway), so what tx
// counts of the account stays counted: creates bounded per account take
// it before counting. A missing account is ErrNotFound.
func lockAccountRow(ctx context.Context, tx *sql.Tx, accountID string) error {
	n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE accounts SET id = id WHERE id = $1`, accountID))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}
