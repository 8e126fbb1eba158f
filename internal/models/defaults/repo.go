package defaults

import (
	"context"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// The account's own default model is a column of the accounts row
// (accounts.default_model). This area is the only one that uses it, but
// the accounts table belongs to the accounts area, which reads and writes
// the column for it (directory.DefaultModel, directory.SetDefaultModel).

// accountDefaultModel returns the account's own default model ("" when
// it has none and the server's default applies). A missing account is
// store.ErrNotFound.
func accountDefaultModel(ctx context.Context, db *store.DB, accountID string) (string, error) {
	return directory.DefaultModel(ctx, db.R, accountID)
}

// setAccountDefaultModel sets the account's default model, or clears it
// with "". A missing account is store.ErrNotFound.
func setAccountDefaultModel(ctx context.Context, db *store.DB, accountID, model string) error {
	return directory.SetDefaultModel(ctx, db.W, accountID, model)
}
