package directory

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/billing/ledgerrow"
	"github.com/agentry/agentry/internal/store"
)

// Account kinds.
const (
	KindPersonal     = "personal"
	KindOrganization = "organization"
)

// Account is a tenant: everything else belongs to exactly one.
type Account struct {
	ID         string
	Kind       string
	Name       string
	APIVersion string // pinned Service-Version; "" when unpinned
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// CreateAccount inserts an account with an opening credit balance (in credits).
func CreateAccount(ctx context.Context, db *store.DB, kind, name string, openingCredits float64) (Account, error) {
	var a Account
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = createAccount(ctx, tx, kind, name, openingCredits)
		return err
	})
	return a, err
}

// createAccount inserts the account and its opening balance in tx, the
// transaction that also makes its first member, so no account exists
// without it: the balance on its row, the movement in the billing area's
// ledger (ledgerrow). A zero balance records no movement.
func createAccount(ctx context.Context, tx *sql.Tx, kind, name string, openingCredits float64) (Account, error) {
	now := store.Now()
	a := Account{ID: store.NewID(), Kind: kind, Name: name, CreatedAt: now, UpdatedAt: now}
	micro := store.ToMicro(openingCredits)
	_, err := tx.ExecContext(ctx,
		`INSERT INTO accounts (id, kind, name, credit_balance, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)`,
		a.ID, a.Kind, a.Name, micro, now)
	if err != nil {
		return Account{}, err
	}
	if micro != 0 {
		if err := ledgerrow.Record(ctx, tx, a.ID, micro, micro, "opening balance", ""); err != nil {
			return Account{}, err
		}
	}
	return a, nil
}

const accountColumns = `id, kind, name, COALESCE(api_version, ''), created_at, updated_at`

func scanAccount(row store.Scanner) (Account, error) {
	var a Account
	err := row.Scan(&a.ID, &a.Kind, &a.Name, &a.APIVersion, &a.CreatedAt, &a.UpdatedAt)
	return a, err
}

// GetAccount returns one account by id. Every request of a pinned
// account reads it, so its statement is prepared once.
func GetAccount(ctx context.Context, db *store.DB, id string) (Account, error) {
	stmt, err := db.Prepared(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`)
	if err != nil {
		return Account{}, err
	}
	a, err := scanAccount(stmt.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, store.ErrNotFound
	}
	return a, err
}

// Accounts lists every account, oldest first (admin use only: it crosses tenants).
func Accounts(ctx context.Context, db *store.DB) ([]Account, error) {
	return store.All(ctx, db.R, scanAccount, `SELECT `+accountColumns+` FROM accounts ORDER BY id`)
}

// SetAPIVersion pins the account's Service-Version, or clears it with "".
func SetAPIVersion(ctx context.Context, db *store.DB, accountID, v string) error {
	return store.Affected(ctx, db.W, `UPDATE accounts SET api_version = $1, updated_at = $2 WHERE id = $3`,
		store.NullIfEmpty(v), store.Now(), accountID)
}

// AccountCount tells whether the database is empty (first start bootstraps it).
func AccountCount(ctx context.Context, db *store.DB) (int, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts`).Scan(&n)
	return n, err
}
