package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
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

// NewID returns a UUIDv7: time-ordered, so ids sort by creation.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// CreateAccount inserts an account with an opening credit balance (in credits).
func (db *DB) CreateAccount(ctx context.Context, kind, name string, openingCredits float64) (Account, error) {
	var a Account
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = createAccount(ctx, tx, kind, name, openingCredits)
		return err
	})
	return a, err
}

func createAccount(ctx context.Context, tx *sql.Tx, kind, name string, openingCredits float64) (Account, error) {
	now := Now()
	a := Account{ID: NewID(), Kind: kind, Name: name, CreatedAt: now, UpdatedAt: now}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO accounts (id, kind, name, credit_balance, created_at, updated_at) VALUES ($1, $2, $3, 0, $4, $4)`,
		a.ID, a.Kind, a.Name, now)
	if err != nil {
		return Account{}, err
	}
	if micro := ToMicro(openingCredits); micro != 0 {
		if _, err := AdjustCredits(ctx, tx, a.ID, micro, "opening balance", "", true); err != nil {
			return Account{}, err
		}
	}
	return a, nil
}

const accountColumns = `id, kind, name, COALESCE(api_version, ''), created_at, updated_at`

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

func scanAccount(row interface{ Scan(...any) error }) (Account, error) {
	var a Account
	err := row.Scan(&a.ID, &a.Kind, &a.Name, &a.APIVersion, &a.CreatedAt, &a.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, ErrNotFound
	}
	return a, err
}

// Account returns one account by id.
func (db *DB) Account(ctx context.Context, id string) (Account, error) {
	stmt, err := db.prepared(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`)
	if err != nil {
		return Account{}, err
	}
	return scanAccount(stmt.QueryRowContext(ctx, id))
}

// Accounts lists every account, oldest first (admin use only: it crosses tenants).
func (db *DB) Accounts(ctx context.Context) ([]Account, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+accountColumns+` FROM accounts ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// SetAPIVersion pins the account's Service-Version, or clears it with "".
func (db *DB) SetAPIVersion(ctx context.Context, accountID, v string) error {
	var pin any
	if v != "" {
		pin = v
	}
	res, err := db.W.ExecContext(ctx, `UPDATE accounts SET api_version = $1, updated_at = $2 WHERE id = $3`, pin, Now(), accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// AccountCount tells whether the database is empty (first start bootstraps it).
func (db *DB) AccountCount(ctx context.Context) (int, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts`).Scan(&n)
	return n, err
}
