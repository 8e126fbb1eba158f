package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Membership ties a user to an account with a role.
type Membership struct {
	AccountID   string
	AccountName string
	AccountKind string
	UserID      string
	Role        string
	CreatedAt   time.Time
}

// CreateOrganization creates an organization account owned by ownerUserID.
func (db *DB) CreateOrganization(ctx context.Context, name, ownerUserID string, openingCredits float64) (Account, error) {
	var a Account
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if a, err = createAccount(ctx, tx, KindOrganization, name, openingCredits); err != nil {
			return err
		}
		return addMember(ctx, tx, a.ID, ownerUserID, RoleOwner)
	})
	return a, err
}

// AddMember adds a user to an account, or changes the role of one already in it.
func (db *DB) AddMember(ctx context.Context, accountID, userID, role string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error { return addMember(ctx, tx, accountID, userID, role) })
}

func addMember(ctx context.Context, tx *sql.Tx, accountID, userID, role string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO memberships (account_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, user_id) DO UPDATE SET role = excluded.role`, accountID, userID, role, Now())
	if err != nil && isForeignKeyViolation(err) {
		return ErrNotFound
	}
	return err
}

// WeakerRole returns the less powerful of two roles (owner > admin > member);
// an unknown role counts as the weakest.
func WeakerRole(a, b string) string {
	if roleStrength(b) < roleStrength(a) {
		return b
	}
	return a
}

func roleStrength(r string) int {
	switch r {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleMember:
		return 1
	}
	return 0
}

// RemoveMember takes a user out of an account.
func (db *DB) RemoveMember(ctx context.Context, accountID, userID string) error {
	res, err := db.W.ExecContext(ctx, `DELETE FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Role returns the user's role in the account, or ErrNotFound when not a member.
func (db *DB) Role(ctx context.Context, accountID, userID string) (string, error) {
	var role string
	err := db.R.QueryRowContext(ctx, `SELECT role FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return role, err
}

const membershipSelect = `SELECT m.account_id, a.name, a.kind, m.user_id, m.role, m.created_at
	FROM memberships m JOIN accounts a ON a.id = m.account_id`

func (db *DB) memberships(ctx context.Context, where string, arg string) ([]Membership, error) {
	stmt, err := db.prepared(ctx, membershipSelect+` WHERE `+where+` ORDER BY a.name, m.account_id`)
	if err != nil {
		return nil, err
	}
	rows, err := stmt.QueryContext(ctx, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Membership
	for rows.Next() {
		var m Membership
		if err := rows.Scan(&m.AccountID, &m.AccountName, &m.AccountKind, &m.UserID, &m.Role, &m.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Organizations lists the organization accounts a user belongs to, by name.
func (db *DB) Organizations(ctx context.Context, userID string) ([]Membership, error) {
	return db.memberships(ctx, `m.user_id = $1 AND a.kind = 'organization'`, userID)
}

// MembershipsOfUser lists every account a user belongs to.
func (db *DB) MembershipsOfUser(ctx context.Context, userID string) ([]Membership, error) {
	return db.memberships(ctx, `m.user_id = $1`, userID)
}

// MembershipsOfAccount lists an account's members.
func (db *DB) MembershipsOfAccount(ctx context.Context, accountID string) ([]Membership, error) {
	return db.memberships(ctx, `m.account_id = $1`, accountID)
}

func isForeignKeyViolation(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "23503") || strings.Contains(msg, "FOREIGN KEY constraint failed")
}
