package directory

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

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

// CreateUser creates a user with a personal account it owns, in one
// transaction: store.ErrConflict for an email or subject already taken.
func CreateUser(ctx context.Context, db *store.DB, in NewUser) (User, Account, error) {
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
	u := User{ID: store.NewID(), Email: strings.ToLower(in.Email), Name: name, OIDCIssuer: in.OIDCIssuer,
		OIDCSubject: in.OIDCSubject, PersonalAccountID: a.ID, CreatedAt: a.CreatedAt}
	_, err = tx.ExecContext(ctx, `INSERT INTO users (id, email, name, oidc_issuer, oidc_subject, personal_account_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		u.ID, store.NullIfEmpty(u.Email), u.Name, store.NullIfEmpty(u.OIDCIssuer), store.NullIfEmpty(u.OIDCSubject), a.ID, u.CreatedAt)
	if err != nil {
		if store.IsUniqueViolation(err) {
			return User{}, Account{}, store.ErrConflict
		}
		return User{}, Account{}, err
	}
	if err := addMember(ctx, tx, a.ID, u.ID, store.RoleOwner); err != nil {
		return User{}, Account{}, err
	}
	return u, a, nil
}

const userColumns = `id, COALESCE(email, ''), name, COALESCE(oidc_issuer, ''), COALESCE(oidc_subject, ''), personal_account_id, created_at`

func scanUser(row store.Scanner) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Email, &u.Name, &u.OIDCIssuer, &u.OIDCSubject, &u.PersonalAccountID, &u.CreatedAt)
	return u, err
}

// GetUser returns one user by id.
func GetUser(ctx context.Context, db *store.DB, id string) (User, error) {
	return store.One(ctx, db.R, scanUser, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
}

// UserByEmail finds a user by email, case-insensitively.
func UserByEmail(ctx context.Context, db *store.DB, email string) (User, error) {
	return store.One(ctx, db.R, scanUser, `SELECT `+userColumns+` FROM users WHERE email = $1`, strings.ToLower(email))
}

// UserBySubject returns the user that an identity provider's subject maps to,
// creating it with a personal account on first sight. Two replicas seeing a
// new subject at once both try to insert; the loser reads the winner's row.
func UserBySubject(ctx context.Context, db *store.DB, issuer, subject, email, name string, openingCredits float64) (User, error) {
	get := func() (User, error) {
		return store.One(ctx, db.R, scanUser, `SELECT `+userColumns+` FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2`, issuer, subject)
	}
	u, err := get()
	if !errors.Is(err, store.ErrNotFound) {
		return u, err
	}
	// The email may already belong to another user (one created by an admin,
	// or by another issuer); the subject is the identity, so drop the email
	// rather than refuse the sign-in.
	if email != "" {
		if _, err := UserByEmail(ctx, db, email); err == nil {
			email = ""
		}
	}
	if name == "" {
		name = subject
	}
	u, _, err = CreateUser(ctx, db, NewUser{Email: email, Name: name, OIDCIssuer: issuer, OIDCSubject: subject, OpeningCredits: openingCredits})
	if errors.Is(err, store.ErrConflict) {
		return get()
	}
	return u, err
}

// Users lists every user (admin use only: it crosses tenants).
func Users(ctx context.Context, db *store.DB) ([]User, error) {
	return store.All(ctx, db.R, scanUser, `SELECT `+userColumns+` FROM users ORDER BY id`)
}
