package directory

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentry/agentry/internal/store"
)

// What other areas ask of the accounts, users and memberships, and the
// writes they make to an account's row. Each takes the caller's querier
// (a pool or the transaction the question belongs to) or, for the
// per-request reads, the database, whose prepared statements it reuses.

// LockAccount takes the account row's lock until tx ends, with a no-op
// write (PostgreSQL; SQLite has one writer anyway), so what tx counts of
// the account stays counted: creates bounded per account (secrets,
// governance policies, alert configurations…) take it before counting. A
// missing account is store.ErrNotFound.
func LockAccount(ctx context.Context, tx *sql.Tx, accountID string) error {
	return store.Affected(ctx, tx, `UPDATE accounts SET id = id WHERE id = $1`, accountID)
}

// KindAndRole returns an account's kind and the user's role in it (""
// when userID is "" or not a member): what the authenticator reads with
// a key. It runs on every uncached request, so its statement is prepared
// once. A missing account is store.ErrNotFound.
func KindAndRole(ctx context.Context, db *store.DB, accountID, userID string) (kind, role string, err error) {
	stmt, err := db.Prepared(ctx, `SELECT a.kind, COALESCE(m.role, '') FROM accounts a
		LEFT JOIN memberships m ON m.account_id = a.id AND m.user_id = $2 WHERE a.id = $1`)
	if err != nil {
		return "", "", err
	}
	err = stmt.QueryRowContext(ctx, accountID, store.NullIfEmpty(userID)).Scan(&kind, &role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", store.ErrNotFound
	}
	return kind, role, err
}

// Contact is how another area shows a user: name and e-mail address (""
// when none).
type Contact struct{ Name, Email string }

// Contacts returns the name and e-mail address of those of ids that are
// users, by id.
func Contacts(ctx context.Context, q store.Querier, ids []string) (map[string]Contact, error) {
	out := map[string]Contact{}
	err := store.InChunks(ids, func(part []any) error {
		rows, err := store.All(ctx, q, func(row store.Scanner) ([3]string, error) {
			var c [3]string // id, name, email
			return c, row.Scan(&c[0], &c[1], &c[2])
		}, `SELECT id, name, COALESCE(email, '') FROM users WHERE id IN (`+store.Placeholders(1, len(part))+`)`, part...)
		for _, c := range rows {
			out[c[0]] = Contact{Name: c[1], Email: c[2]}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RosterMember is a member of an account as a distribution list sees it
// (the alerts'): the user's name, address and role, and the account's
// kind.
type RosterMember struct {
	UserID, Name, Email, Role string
	AccountKind               string
}

// Roster lists an account's members with their roles and e-mail
// addresses, and the account's kind, by user id.
func Roster(ctx context.Context, q store.Querier, accountID string) ([]RosterMember, error) {
	return store.All(ctx, q, func(row store.Scanner) (RosterMember, error) {
		var m RosterMember
		return m, row.Scan(&m.UserID, &m.Name, &m.Email, &m.Role, &m.AccountKind)
	}, `SELECT m.user_id, u.name, COALESCE(u.email, ''), m.role, a.kind FROM memberships m
		JOIN users u ON u.id = m.user_id JOIN accounts a ON a.id = m.account_id WHERE m.account_id = $1 ORDER BY m.user_id`, accountID)
}

// FirstOwnerEmail is the e-mail address of the account's first owner
// that has one ("" when none does).
func FirstOwnerEmail(ctx context.Context, q store.Querier, accountID string) (string, error) {
	email, err := store.One(ctx, q, store.ScanString, `SELECT COALESCE(u.email, '') FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.account_id = $1 AND m.role = 'owner' AND u.email IS NOT NULL ORDER BY m.created_at LIMIT 1`, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return email, err
}

// DefaultModel returns the account's own default model, a column of its
// row that the model defaults (internal/models/defaults) read and write:
// "" when it has none. A missing account is store.ErrNotFound.
func DefaultModel(ctx context.Context, q store.Querier, accountID string) (string, error) {
	return store.One(ctx, q, func(r store.Scanner) (string, error) {
		var m sql.NullString
		err := r.Scan(&m)
		return m.String, err
	}, `SELECT default_model FROM accounts WHERE id = $1`, accountID)
}

// SetDefaultModel sets the account's default model, or clears it with "".
// A missing account is store.ErrNotFound.
func SetDefaultModel(ctx context.Context, q store.Querier, accountID, model string) error {
	return store.Affected(ctx, q, `UPDATE accounts SET default_model = $1, updated_at = $2 WHERE id = $3`,
		store.NullIfEmpty(model), store.Now(), accountID)
}

// CreditBalance returns an account's balance in micro-credits, the column
// of its row that the billing area moves (store.ErrNotFound for an unknown
// account).
func CreditBalance(ctx context.Context, q store.Querier, accountID string) (int64, error) {
	return store.One(ctx, q, func(row store.Scanner) (m int64, err error) { return m, row.Scan(&m) },
		`SELECT credit_balance FROM accounts WHERE id = $1`, accountID)
}

// MoveCredits moves an account's balance by delta micro-credits within tx
// and returns the balance after; the billing area records the movement in
// its ledger in the same transaction. Without overdraft, a debit the
// balance does not cover changes nothing and answers
// store.ErrInsufficientCredits (the check and the subtraction are one
// conditional UPDATE, safe under concurrent callers); an unknown account
// answers store.ErrNotFound.
func MoveCredits(ctx context.Context, tx *sql.Tx, accountID string, delta int64, overdraft bool) (int64, error) {
	var after int64
	err := tx.QueryRowContext(ctx, `UPDATE accounts SET credit_balance = credit_balance + $1
		WHERE id = $2 AND ($3 OR credit_balance + $1 >= 0) RETURNING credit_balance`,
		delta, accountID, overdraft || delta >= 0).Scan(&after)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := CreditBalance(ctx, tx, accountID); err != nil {
			return 0, err
		}
		return 0, store.ErrInsufficientCredits
	}
	return after, err
}
