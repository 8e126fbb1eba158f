package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Roles a user holds in an account, strongest first.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// ValidRole reports whether r is one of the three roles.
func ValidRole(r string) bool { return r == RoleOwner || r == RoleAdmin || r == RoleMember }

// User is a person. Each user owns one personal account.
type User struct {
	ID                string
	Email             string
	Name              string
	OIDCIssuer        string
	OIDCSubject       string
	PersonalAccountID string
	CreatedAt         time.Time
}

// NewUser describes a user to create.
type NewUser struct {
	Email, Name             string
	OIDCIssuer, OIDCSubject string
	OpeningCredits          float64
}

// CreateUser creates a user with a personal account it owns, in one transaction.
func (db *DB) CreateUser(ctx context.Context, in NewUser) (User, Account, error) {
	var (
		u User
		a Account
	)
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		u, a, err = createUser(ctx, tx, in)
		return err
	})
	return u, a, err
}

func createUser(ctx context.Context, tx *sql.Tx, in NewUser) (User, Account, error) {
	name := in.Name
	if name == "" {
		name = in.Email
	}
	a, err := createAccount(ctx, tx, KindPersonal, name, in.OpeningCredits)
	if err != nil {
		return User{}, Account{}, err
	}
	u := User{ID: NewID(), Email: strings.ToLower(in.Email), Name: name, OIDCIssuer: in.OIDCIssuer,
		OIDCSubject: in.OIDCSubject, PersonalAccountID: a.ID, CreatedAt: a.CreatedAt}
	_, err = tx.ExecContext(ctx, `INSERT INTO users (id, email, name, oidc_issuer, oidc_subject, personal_account_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		u.ID, nullable(u.Email), u.Name, nullable(u.OIDCIssuer), nullable(u.OIDCSubject), a.ID, u.CreatedAt)
	if err != nil {
		if isUniqueViolation(err) {
			return User{}, Account{}, ErrConflict
		}
		return User{}, Account{}, err
	}
	if err := addMember(ctx, tx, a.ID, u.ID, RoleOwner); err != nil {
		return User{}, Account{}, err
	}
	return u, a, nil
}

const userColumns = `id, COALESCE(email, ''), name, COALESCE(oidc_issuer, ''), COALESCE(oidc_subject, ''), personal_account_id, created_at`

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Email, &u.Name, &u.OIDCIssuer, &u.OIDCSubject, &u.PersonalAccountID, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	return u, err
}

// User returns one user by id.
func (db *DB) User(ctx context.Context, id string) (User, error) {
	return scanUser(db.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
}

// UserByEmail finds a user by email, case-insensitively.
func (db *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	return scanUser(db.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1`, strings.ToLower(email)))
}

// UserBySubject returns the user that an identity provider's subject maps to,
// creating it with a personal account on first sight. Two replicas seeing a
// new subject at once both try to insert; the loser reads the winner's row.
func (db *DB) UserBySubject(ctx context.Context, issuer, subject, email, name string, openingCredits float64) (User, error) {
	get := func() (User, error) {
		return scanUser(db.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2`, issuer, subject))
	}
	u, err := get()
	if !errors.Is(err, ErrNotFound) {
		return u, err
	}
	// The email may already belong to another user (one created by an admin,
	// or by another issuer); the subject is the identity, so drop the email
	// rather than refuse the sign-in.
	if email != "" {
		if _, err := db.UserByEmail(ctx, email); err == nil {
			email = ""
		}
	}
	if name == "" {
		name = subject
	}
	u, _, err = db.CreateUser(ctx, NewUser{Email: email, Name: name, OIDCIssuer: issuer, OIDCSubject: subject, OpeningCredits: openingCredits})
	if errors.Is(err, ErrConflict) {
		return get()
	}
	return u, err
}

// Users lists every user (admin use only: it crosses tenants).
func (db *DB) Users(ctx context.Context) ([]User, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	// pgx reports SQLSTATE 23505; SQLite reports a UNIQUE or PRIMARY KEY constraint failure.
	return strings.Contains(msg, "23505") || strings.Contains(msg, "UNIQUE constraint failed") ||
		strings.Contains(msg, "constraint failed: PRIMARY KEY")
}
