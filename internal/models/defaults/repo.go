package defaults

import (
	"context"
	"database/sql"

	"github.com/agentry/agentry/internal/store"
)

// The account's own default model is a column of the accounts row
// (accounts.default_model); this area is the only one that reads or
// writes it, so its SQL is here rather than in the store. The accounts
// table itself belongs to the accounts area.

// accountDefaultModel returns the account's own default model ("" when
// it has none and the server's default applies). A missing account is
// store.ErrNotFound.
func accountDefaultModel(ctx context.Context, db *store.DB, accountID string) (string, error) {
	return store.One(ctx, db.R, func(r store.Scanner) (string, error) {
		var m sql.NullString
		err := r.Scan(&m)
		return m.String, err
	}, `SELECT default_model FROM accounts WHERE id = $1`, accountID)
}

// setAccountDefaultModel sets the account's default model, or clears it
// with "". A missing account is store.ErrNotFound.
func setAccountDefaultModel(ctx context.Context, db *store.DB, accountID, model string) error {
	return store.Affected(ctx, db.W, `UPDATE accounts SET default_model = $1, updated_at = $2 WHERE id = $3`,
		store.NullIfEmpty(model), store.Now(), accountID)
}
