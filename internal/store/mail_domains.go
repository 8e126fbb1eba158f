package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// EmailDomain is an account's sending domain (mail/domains owns the rules).
type EmailDomain struct {
	ID, AccountID, Domain, Kind string
	Delegated                   bool
	Status                      string // pending, verified, failed
	IsPrimary, Regressing       bool
	DKIMSelector                string
	DKIMPublic                  string // base64 SubjectPublicKeyInfo
	DKIMPrivate                 string // sealed
	DKIMKeyID                   string
	Checks                      string // JSON
	ErrorMessage                string
	VerifiedAt, LastCheckedAt   *time.Time
	CreatedAt                   time.Time
}

const emailDomainColumns = `id, account_id, domain, kind, delegated, status, is_primary, regressing, dkim_selector,
	dkim_public, dkim_private, dkim_key_id, checks, COALESCE(error_message, ''), verified_at, last_checked_at, created_at`

func scanEmailDomain(row interface{ Scan(...any) error }) (EmailDomain, error) {
	var d EmailDomain
	var verified, checked sql.NullTime
	err := row.Scan(&d.ID, &d.AccountID, &d.Domain, &d.Kind, &d.Delegated, &d.Status, &d.IsPrimary, &d.Regressing, &d.DKIMSelector,
		&d.DKIMPublic, &d.DKIMPrivate, &d.DKIMKeyID, &d.Checks, &d.ErrorMessage, &verified, &checked, &d.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return EmailDomain{}, ErrNotFound
	}
	if verified.Valid {
		t := verified.Time.UTC()
		d.VerifiedAt = &t
	}
	if checked.Valid {
		t := checked.Time.UTC()
		d.LastCheckedAt = &t
	}
	d.CreatedAt = d.CreatedAt.UTC()
	return d, err
}

func scanEmailDomains(rows *sql.Rows, err error) ([]EmailDomain, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []EmailDomain{}
	for rows.Next() {
		d, err := scanEmailDomain(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// CreateEmailDomain stores a new domain. A second domain of the same kind
// in the account, or a vanity name taken anywhere, answers ErrConflict.
func (db *DB) CreateEmailDomain(ctx context.Context, d EmailDomain) (EmailDomain, error) {
	d.ID, d.CreatedAt = NewID(), Now()
	if d.Checks == "" {
		d.Checks = "{}"
	}
	_, err := db.W.ExecContext(ctx, `INSERT INTO email_domains (id, account_id, domain, kind, delegated, status, is_primary, regressing,
		dkim_selector, dkim_public, dkim_private, dkim_key_id, checks, error_message, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, FALSE, FALSE, $7, $8, $9, $10, $11, $12, $13)`,
		d.ID, d.AccountID, d.Domain, d.Kind, d.Delegated, d.Status, d.DKIMSelector, d.DKIMPublic, d.DKIMPrivate, d.DKIMKeyID,
		d.Checks, nullable(d.ErrorMessage), d.CreatedAt)
	switch {
	case err != nil && isUniqueViolation(err):
		return EmailDomain{}, ErrConflict
	case err != nil && isForeignKeyViolation(err):
		return EmailDomain{}, ErrNotFound
	}
	return d, err
}

// EmailDomains lists an account's domains, oldest first.
func (db *DB) EmailDomains(ctx context.Context, accountID string) ([]EmailDomain, error) {
	return scanEmailDomains(db.R.QueryContext(ctx, `SELECT `+emailDomainColumns+` FROM email_domains WHERE account_id = $1 ORDER BY created_at, id`, accountID))
}

// EmailDomain returns one of an account's domains, or ErrNotFound.
func (db *DB) EmailDomain(ctx context.Context, accountID, id string) (EmailDomain, error) {
	return scanEmailDomain(db.R.QueryRowContext(ctx, `SELECT `+emailDomainColumns+` FROM email_domains WHERE account_id = $1 AND id = $2`, accountID, id))
}

// PrimaryEmailDomain returns the account's primary domain, or ErrNotFound.
func (db *DB) PrimaryEmailDomain(ctx context.Context, accountID string) (EmailDomain, error) {
	return scanEmailDomain(db.R.QueryRowContext(ctx, `SELECT `+emailDomainColumns+` FROM email_domains WHERE account_id = $1 AND is_primary`, accountID))
}

// VerifiedEmailDomainByName finds the verified domain of that name, in
// whichever account verified it (inbound routing and DMARC reports are
// addressed by domain, before any account is known), or ErrNotFound.
func (db *DB) VerifiedEmailDomainByName(ctx context.Context, domain string) (EmailDomain, error) {
	return scanEmailDomain(db.R.QueryRowContext(ctx, `SELECT `+emailDomainColumns+` FROM email_domains WHERE domain = $1 AND status = 'verified'`, domain))
}

// EmailDomainsByName lists every account's domains of that name (at most
// one verified), for a report addressed to the domain before verification.
func (db *DB) EmailDomainsByName(ctx context.Context, domain string) ([]EmailDomain, error) {
	return scanEmailDomains(db.R.QueryContext(ctx, `SELECT `+emailDomainColumns+` FROM email_domains WHERE domain = $1 ORDER BY created_at LIMIT 20`, domain))
}

// EmailDomainsDue lists up to limit domains of all accounts whose last
// check is older than before (never checked first): the background
// verification sweep's work.
func (db *DB) EmailDomainsDue(ctx context.Context, before time.Time, limit int) ([]EmailDomain, error) {
	return scanEmailDomains(db.R.QueryContext(ctx, `SELECT `+emailDomainColumns+` FROM email_domains
		WHERE last_checked_at IS NULL OR last_checked_at < $1 ORDER BY last_checked_at IS NOT NULL, last_checked_at LIMIT $2`, before, limit))
}

// EmailDomainCheck is the outcome of a DNS check.
type EmailDomainCheck struct {
	Status       string
	Regressing   bool
	Checks       string
	ErrorMessage string
	VerifiedAt   *time.Time
	CheckedAt    time.Time
}

// RecordEmailDomainCheck stores a check's outcome. Verifying a custom
// domain another account verified first answers ErrConflict.
func (db *DB) RecordEmailDomainCheck(ctx context.Context, accountID, id string, c EmailDomainCheck) (EmailDomain, error) {
	res, err := db.W.ExecContext(ctx, `UPDATE email_domains SET status = $1, regressing = $2, checks = $3, error_message = $4,
		verified_at = $5, last_checked_at = $6, is_primary = (is_primary AND $1 = 'verified') WHERE account_id = $7 AND id = $8`,
		c.Status, c.Regressing, c.Checks, nullable(c.ErrorMessage), nullableTime(c.VerifiedAt), c.CheckedAt, accountID, id)
	if err != nil {
		if isUniqueViolation(err) {
			return EmailDomain{}, ErrConflict
		}
		return EmailDomain{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return EmailDomain{}, ErrNotFound
	}
	return db.EmailDomain(ctx, accountID, id)
}

// SetPrimaryEmailDomain makes a verified domain the account's primary one
// (ErrConflict when it is not verified); id "" clears the primary.
func (db *DB) SetPrimaryEmailDomain(ctx context.Context, accountID, id string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		if id != "" {
			var status string
			err := tx.QueryRowContext(ctx, `SELECT status FROM email_domains WHERE account_id = $1 AND id = $2`, accountID, id).Scan(&status)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotFound
			}
			if err != nil {
				return err
			}
			if status != "verified" {
				return ErrConflict
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE email_domains SET is_primary = FALSE WHERE account_id = $1 AND is_primary`, accountID); err != nil {
			return err
		}
		if id == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, `UPDATE email_domains SET is_primary = TRUE WHERE account_id = $1 AND id = $2`, accountID, id)
		return err
	})
}

// DeleteEmailDomain removes an account's domain and returns it.
func (db *DB) DeleteEmailDomain(ctx context.Context, accountID, id string) (EmailDomain, error) {
	d, err := scanEmailDomain(db.W.QueryRowContext(ctx, `DELETE FROM email_domains WHERE account_id = $1 AND id = $2 RETURNING `+emailDomainColumns, accountID, id))
	return d, err
}

// AccountOwnerEmail is the e-mail address of the account's first owner
// ("" when no owner has one): where a test message may go.
func (db *DB) AccountOwnerEmail(ctx context.Context, accountID string) (string, error) {
	var email string
	err := db.R.QueryRowContext(ctx, `SELECT COALESCE(u.email, '') FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.account_id = $1 AND m.role = 'owner' AND u.email IS NOT NULL ORDER BY m.created_at LIMIT 1`, accountID).Scan(&email)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return email, err
}
