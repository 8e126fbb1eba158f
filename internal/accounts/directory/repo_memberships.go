package directory

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/store"
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
func CreateOrganization(ctx context.Context, db *store.DB, name, ownerUserID string, openingCredits float64) (Account, error) {
	var a Account
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if a, err = createAccount(ctx, tx, KindOrganization, name, openingCredits); err != nil {
			return err
		}
		return addMember(ctx, tx, a.ID, ownerUserID, store.RoleOwner)
	})
	return a, err
}

// AddMember adds a user to an account, or changes the role of one already
// in it; store.ErrNotFound for a missing account or user.
func AddMember(ctx context.Context, db *store.DB, accountID, userID, role string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error { return addMember(ctx, tx, accountID, userID, role) })
}

func addMember(ctx context.Context, tx *sql.Tx, accountID, userID, role string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO memberships (account_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, user_id) DO UPDATE SET role = excluded.role`, accountID, userID, role, store.Now())
	if store.IsForeignKeyViolation(err) {
		return store.ErrNotFound
	}
	return err
}

// RemoveMember takes a user out of an account.
func RemoveMember(ctx context.Context, db *store.DB, accountID, userID string) error {
	return store.Affected(ctx, db.W, `DELETE FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID)
}

// Role returns the user's role in the account, or store.ErrNotFound when
// not a member.
func Role(ctx context.Context, db *store.DB, accountID, userID string) (string, error) {
	return store.One(ctx, db.R, func(row store.Scanner) (string, error) {
		var role string
		err := row.Scan(&role)
		return role, err
	}, `SELECT role FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID)
}

// IsMember reports whether a user belongs to an account: alert recipients
// and the user references of an agent's definition must.
func IsMember(ctx context.Context, db *store.DB, accountID, userID string) (bool, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID).Scan(&n)
	return n > 0, err
}

const membershipSelect = `SELECT m.account_id, a.name, a.kind, m.user_id, m.role, m.created_at
	FROM memberships m JOIN accounts a ON a.id = m.account_id`

func scanMembership(row store.Scanner) (Membership, error) {
	var m Membership
	err := row.Scan(&m.AccountID, &m.AccountName, &m.AccountKind, &m.UserID, &m.Role, &m.CreatedAt)
	return m, err
}

// memberships lists the memberships where holds, by account name. A
// request of a user with organizations reads them, so the statement is
// prepared once.
func memberships(ctx context.Context, db *store.DB, where string, arg string) ([]Membership, error) {
	stmt, err := db.Prepared(ctx, membershipSelect+` WHERE `+where+` ORDER BY a.name, m.account_id`)
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
		m, err := scanMembership(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Organizations lists the organization accounts a user belongs to, by name.
func Organizations(ctx context.Context, db *store.DB, userID string) ([]Membership, error) {
	return memberships(ctx, db, `m.user_id = $1 AND a.kind = 'organization'`, userID)
}

// MembershipsOfUser lists every account a user belongs to.
func MembershipsOfUser(ctx context.Context, db *store.DB, userID string) ([]Membership, error) {
	return memberships(ctx, db, `m.user_id = $1`, userID)
}

// MembershipsOfAccount lists an account's members.
func MembershipsOfAccount(ctx context.Context, db *store.DB, accountID string) ([]Membership, error) {
	return memberships(ctx, db, `m.account_id = $1`, accountID)
}

// Member is a user of an account with their role, as the account's
// settings list them.
type Member struct {
	UserID    string
	Email     string
	Name      string
	Role      string
	CreatedAt time.Time
}

func scanMember(row store.Scanner) (Member, error) {
	var m Member
	err := row.Scan(&m.UserID, &m.Email, &m.Name, &m.Role, &m.CreatedAt)
	return m, err
}

// AccountMembers lists an account's members by name.
func AccountMembers(ctx context.Context, db *store.DB, accountID string) ([]Member, error) {
	return store.All(ctx, db.R, scanMember, `SELECT m.user_id, COALESCE(u.email, ''), u.name, m.role, m.created_at
		FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 ORDER BY u.name, m.user_id`, accountID)
}
