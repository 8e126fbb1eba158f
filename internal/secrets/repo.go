package secrets

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// The secrets area keeps its own persistence (issue 31's vertical slices):
// the table account_secrets is read and written only here; the store
// lends its pools, transactions and scan helpers.

// Info describes an account secret without its value.
type Info struct {
	Name string
	// Hosts are the host patterns the secret may be sent to; empty for a
	// secret stored before secrets were bound to hosts.
	Hosts     []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Sealed is a secret as stored: its value encrypted.
type Sealed struct {
	Info
	Ciphertext string // base64
	KeyID      string // which key sealed it
}

// errNeedsHosts means a new secret was stored without hosts.
var errNeedsHosts = errors.New("a new secret needs hosts")

// repo is the area's SQL.
type repo struct{ db *store.DB }

// hostsColumn encodes hosts for the hosts column (NULL for none).
func hostsColumn(hosts []string) any {
	if hosts == nil {
		return nil
	}
	b, _ := json.Marshal(hosts)
	return string(b)
}

// scanHosts decodes the hosts column; a value that does not decode binds
// the secret to nothing.
func scanHosts(v sql.NullString) []string {
	out := []string{}
	if v.Valid {
		_ = json.Unmarshal([]byte(v.String), &out)
	}
	return out
}

// put creates or replaces an account's secret. An empty Ciphertext keeps
// the stored value (changing only the hosts; store.ErrNotFound when there
// is no such secret); nil hosts keep the stored hosts, and a new secret
// needs them (errNeedsHosts). A new name is refused with ErrTooMany when
// the account holds limit secrets already; the account's row is locked
// while counting, so concurrent writes cannot pass the limit together.
// created reports a new name.
func (r repo) put(ctx context.Context, accountID string, s Sealed, hosts []string, limit int) (info Info, created bool, err error) {
	now := store.Now()
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := directory.LockAccount(ctx, tx, accountID); err != nil {
			return err
		}
		var stored sql.NullString
		err := tx.QueryRowContext(ctx, `UPDATE account_secrets SET
				ciphertext = CASE WHEN $1 = '' THEN ciphertext ELSE $1 END,
				key_id = CASE WHEN $1 = '' THEN key_id ELSE $2 END,
				hosts = COALESCE($3, hosts), updated_at = $4
			WHERE account_id = $5 AND name = $6 RETURNING created_at, hosts`,
			s.Ciphertext, s.KeyID, hostsColumn(hosts), now, accountID, s.Name).Scan(&info.CreatedAt, &stored)
		if err == nil {
			info.Name, info.UpdatedAt, info.Hosts = s.Name, now, scanHosts(stored)
			info.CreatedAt = info.CreatedAt.UTC()
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if s.Ciphertext == "" {
			return store.ErrNotFound
		}
		if hosts == nil {
			return errNeedsHosts
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM account_secrets WHERE account_id = $1`, accountID).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return ErrTooMany
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO account_secrets (account_id, name, ciphertext, key_id, hosts, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)`, accountID, s.Name, s.Ciphertext, s.KeyID, hostsColumn(hosts), now); err != nil {
			return err
		}
		info, created = Info{Name: s.Name, Hosts: append([]string{}, hosts...), CreatedAt: now, UpdatedAt: now}, true
		return nil
	})
	if err != nil {
		return Info{}, false, err
	}
	return info, created, nil
}

func scanInfo(row store.Scanner) (Info, error) {
	var s Info
	var hosts sql.NullString
	if err := row.Scan(&s.Name, &hosts, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return Info{}, err
	}
	s.Hosts = scanHosts(hosts)
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return s, nil
}

// list lists an account's secrets by name, without their values.
func (r repo) list(ctx context.Context, accountID string) ([]Info, error) {
	return store.All(ctx, r.db.R, scanInfo, `SELECT name, hosts, created_at, updated_at FROM account_secrets
		WHERE account_id = $1 ORDER BY name`, accountID)
}

// sealed returns one of an account's secrets, still sealed, or
// store.ErrNotFound.
func (r repo) sealed(ctx context.Context, accountID, name string) (Sealed, error) {
	return store.One(ctx, r.db.R, func(row store.Scanner) (Sealed, error) {
		var s Sealed
		var hosts sql.NullString
		if err := row.Scan(&s.Name, &s.Ciphertext, &s.KeyID, &hosts, &s.CreatedAt, &s.UpdatedAt); err != nil {
			return Sealed{}, err
		}
		s.Hosts = scanHosts(hosts)
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		return s, nil
	}, `SELECT name, ciphertext, key_id, hosts, created_at, updated_at FROM account_secrets
		WHERE account_id = $1 AND name = $2`, accountID, name)
}

// remove deletes an account's secret, or answers store.ErrNotFound.
func (r repo) remove(ctx context.Context, accountID, name string) error {
	return store.Affected(ctx, r.db.W, `DELETE FROM account_secrets WHERE account_id = $1 AND name = $2`, accountID, name)
}
