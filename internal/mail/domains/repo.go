package domains

// The domains area keeps its own persistence (issue 31's vertical
// slices): the table email_domains is read and written only here; the
// DMARC area and inbound mail ask this package which account a domain
// belongs to.

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// StoredDomain is an account's sending domain as stored.
type StoredDomain struct {
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

// checkOutcome is the outcome of a DNS check, as stored.
type checkOutcome struct {
	Status       string
	Regressing   bool
	Checks       string
	ErrorMessage string
	VerifiedAt   *time.Time
	CheckedAt    time.Time
}

// repo is the area's SQL.
type repo struct{ db *store.DB }

const domainColumns = `id, account_id, domain, kind, delegated, status, is_primary, regressing, dkim_selector,
	dkim_public, dkim_private, dkim_key_id, checks, COALESCE(error_message, ''), verified_at, last_checked_at, created_at`

func scanDomain(row store.Scanner) (StoredDomain, error) {
	var d StoredDomain
	var verified, checked sql.NullTime
	err := row.Scan(&d.ID, &d.AccountID, &d.Domain, &d.Kind, &d.Delegated, &d.Status, &d.IsPrimary, &d.Regressing, &d.DKIMSelector,
		&d.DKIMPublic, &d.DKIMPrivate, &d.DKIMKeyID, &d.Checks, &d.ErrorMessage, &verified, &checked, &d.CreatedAt)
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

// create stores a new domain. A second domain of the same kind in the
// account, or a vanity name taken anywhere, answers store.ErrConflict.
func (r repo) create(ctx context.Context, d StoredDomain) (StoredDomain, error) {
	d.ID, d.CreatedAt = store.NewID(), store.Now()
	if d.Checks == "" {
		d.Checks = "{}"
	}
	var errMsg any
	if d.ErrorMessage != "" {
		errMsg = d.ErrorMessage
	}
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO email_domains (id, account_id, domain, kind, delegated, status, is_primary, regressing,
		dkim_selector, dkim_public, dkim_private, dkim_key_id, checks, error_message, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, FALSE, FALSE, $7, $8, $9, $10, $11, $12, $13)`,
		d.ID, d.AccountID, d.Domain, d.Kind, d.Delegated, d.Status, d.DKIMSelector, d.DKIMPublic, d.DKIMPrivate, d.DKIMKeyID,
		d.Checks, errMsg, d.CreatedAt)
	switch {
	case store.IsUniqueViolation(err):
		return StoredDomain{}, store.ErrConflict
	case store.IsForeignKeyViolation(err):
		return StoredDomain{}, store.ErrNotFound
	}
	return d, err
}

// list lists an account's domains, oldest first.
func (r repo) list(ctx context.Context, accountID string) ([]StoredDomain, error) {
	return store.All(ctx, r.db.R, scanDomain, `SELECT `+domainColumns+` FROM email_domains WHERE account_id = $1 ORDER BY created_at, id`, accountID)
}

// get returns one of an account's domains, or store.ErrNotFound.
func (r repo) get(ctx context.Context, accountID, id string) (StoredDomain, error) {
	return store.One(ctx, r.db.R, scanDomain, `SELECT `+domainColumns+` FROM email_domains WHERE account_id = $1 AND id = $2`, accountID, id)
}

// primary returns the account's primary domain, or store.ErrNotFound.
func (r repo) primary(ctx context.Context, accountID string) (StoredDomain, error) {
	return store.One(ctx, r.db.R, scanDomain, `SELECT `+domainColumns+` FROM email_domains WHERE account_id = $1 AND is_primary`, accountID)
}

// verifiedByName finds the verified domain of that name, in whichever
// account verified it (inbound routing is addressed by domain, before
// any account is known), or store.ErrNotFound.
func (r repo) verifiedByName(ctx context.Context, domain string) (StoredDomain, error) {
	return store.One(ctx, r.db.R, scanDomain, `SELECT `+domainColumns+` FROM email_domains WHERE domain = $1 AND status = 'verified'`, domain)
}

// byName lists every account's domains of that name (at most one
// verified), for a report addressed to the domain before verification.
func (r repo) byName(ctx context.Context, domain string) ([]StoredDomain, error) {
	return store.All(ctx, r.db.R, scanDomain, `SELECT `+domainColumns+` FROM email_domains WHERE domain = $1 ORDER BY created_at LIMIT 20`, domain)
}

// due lists up to limit domains of all accounts whose last check is
// older than before (never checked first): the background verification
// sweep's work.
func (r repo) due(ctx context.Context, before time.Time, limit int) ([]StoredDomain, error) {
	return store.All(ctx, r.db.R, scanDomain, `SELECT `+domainColumns+` FROM email_domains
		WHERE last_checked_at IS NULL OR last_checked_at < $1 ORDER BY last_checked_at IS NOT NULL, last_checked_at LIMIT $2`, before, limit)
}

// recordCheck stores a check's outcome. Verifying a custom domain
// another account verified first answers store.ErrConflict.
func (r repo) recordCheck(ctx context.Context, accountID, id string, c checkOutcome) (StoredDomain, error) {
	var errMsg, verifiedAt any
	if c.ErrorMessage != "" {
		errMsg = c.ErrorMessage
	}
	if c.VerifiedAt != nil {
		verifiedAt = *c.VerifiedAt
	}
	err := store.Affected(ctx, r.db.W, `UPDATE email_domains SET status = $1, regressing = $2, checks = $3, error_message = $4,
		verified_at = $5, last_checked_at = $6, is_primary = (is_primary AND $1 = 'verified') WHERE account_id = $7 AND id = $8`,
		c.Status, c.Regressing, c.Checks, errMsg, verifiedAt, c.CheckedAt, accountID, id)
	if store.IsUniqueViolation(err) {
		return StoredDomain{}, store.ErrConflict
	}
	if err != nil {
		return StoredDomain{}, err
	}
	return r.get(ctx, accountID, id)
}

// setPrimary makes a verified domain the account's primary one
// (store.ErrConflict when it is not verified); id "" clears the primary.
func (r repo) setPrimary(ctx context.Context, accountID, id string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		if id != "" {
			var status string
			err := tx.QueryRowContext(ctx, `SELECT status FROM email_domains WHERE account_id = $1 AND id = $2`, accountID, id).Scan(&status)
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrNotFound
			}
			if err != nil {
				return err
			}
			if status != StatusVerified {
				return store.ErrConflict
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

// remove deletes an account's domain and returns it.
func (r repo) remove(ctx context.Context, accountID, id string) (StoredDomain, error) {
	return store.One(ctx, r.db.W, scanDomain, `DELETE FROM email_domains WHERE account_id = $1 AND id = $2 RETURNING `+domainColumns, accountID, id)
}

// accountOwnerEmail is the e-mail address of the account's first owner
// ("" when no owner has one): where a test message may go. The members
// and users are the accounts area's tables: it answers.
func (r repo) accountOwnerEmail(ctx context.Context, accountID string) (string, error) {
	return directory.FirstOwnerEmail(ctx, r.db.R, accountID)
}
