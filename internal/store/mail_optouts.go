package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
)

// MailOptOut is a recipient's opt-out of an account's agent mail: of one
// agent, or of all of them (AgentID "").
type MailOptOut struct {
	ID, AccountID, AgentID, AgentName string
	RecipientEmail, Reason, Comment   string
	CreatedAt                         time.Time
}

// optOutScope is the unique key's scope column: the agent, or '*'.
func optOutScope(agentID string) string {
	if agentID == "" {
		return "*"
	}
	return agentID
}

// AddMailOptOut records an opt-out; recording it again is a no-op that
// answers the existing one.
func (db *DB) AddMailOptOut(ctx context.Context, o MailOptOut) (MailOptOut, error) {
	o.RecipientEmail = strings.ToLower(o.RecipientEmail)
	o.ID, o.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO mail_optouts (id, account_id, agent_id, scope_key, recipient_email, reason, comment, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account_id, recipient_email, scope_key) DO NOTHING`,
		o.ID, o.AccountID, nullable(o.AgentID), optOutScope(o.AgentID), o.RecipientEmail, nullable(o.Reason), nullable(o.Comment), o.CreatedAt)
	if err != nil {
		if isForeignKeyViolation(err) {
			return MailOptOut{}, ErrNotFound
		}
		return MailOptOut{}, err
	}
	row := db.W.QueryRowContext(ctx, `SELECT `+optOutColumns+` FROM mail_optouts o LEFT JOIN agents a ON a.id = o.agent_id AND a.account_id = o.account_id
		WHERE o.account_id = $1 AND o.recipient_email = $2 AND o.scope_key = $3`, o.AccountID, o.RecipientEmail, optOutScope(o.AgentID))
	return scanOptOut(row)
}

const optOutColumns = `o.id, o.account_id, COALESCE(o.agent_id, ''), COALESCE(a.name, ''), o.recipient_email, COALESCE(o.reason, ''), COALESCE(o.comment, ''), o.created_at`

func scanOptOut(row interface{ Scan(...any) error }) (MailOptOut, error) {
	var o MailOptOut
	err := row.Scan(&o.ID, &o.AccountID, &o.AgentID, &o.AgentName, &o.RecipientEmail, &o.Reason, &o.Comment, &o.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return MailOptOut{}, ErrNotFound
	}
	o.CreatedAt = o.CreatedAt.UTC()
	return o, err
}

// MailOptOuts lists an account's opt-outs, newest first, with the total;
// with agentID, those of that agent and the account-wide ones.
func (db *DB) MailOptOuts(ctx context.Context, accountID, agentID string, limit, offset int) ([]MailOptOut, int, error) {
	where := `o.account_id = $1`
	args := []any{accountID}
	if agentID != "" {
		where += ` AND (o.agent_id = $2 OR o.agent_id IS NULL)`
		args = append(args, agentID)
	}
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_optouts o WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	rows, err := db.R.QueryContext(ctx, `SELECT `+optOutColumns+` FROM mail_optouts o LEFT JOIN agents a ON a.id = o.agent_id AND a.account_id = o.account_id
		WHERE `+where+` ORDER BY o.created_at DESC, o.id DESC LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []MailOptOut{}
	for rows.Next() {
		o, err := scanOptOut(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, o)
	}
	return out, total, rows.Err()
}

// OptedOut returns which of recipients (lower-cased) opted out of the
// agent's mail or of all the account's mail.
func (db *DB) OptedOut(ctx context.Context, accountID, agentID string, recipients []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(recipients) == 0 {
		return out, nil
	}
	args := []any{accountID, optOutScope(agentID)}
	ph := make([]string, len(recipients))
	for i, r := range recipients {
		args = append(args, strings.ToLower(r))
		ph[i] = "$" + strconv.Itoa(i+3)
	}
	rows, err := db.R.QueryContext(ctx, `SELECT recipient_email FROM mail_optouts WHERE account_id = $1
		AND (scope_key = $2 OR scope_key = '*') AND recipient_email IN (`+strings.Join(ph, ", ")+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		out[r] = true
	}
	return out, rows.Err()
}

// DeleteMailOptOut revokes one of an account's opt-outs, or answers ErrNotFound.
func (db *DB) DeleteMailOptOut(ctx context.Context, accountID, id string) error {
	res, err := db.W.ExecContext(ctx, `DELETE FROM mail_optouts WHERE account_id = $1 AND id = $2`, accountID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// AgentName returns the name of one of an account's agents ("" when it
// does not exist): the display name of the mail it sends.
func (db *DB) AgentName(ctx context.Context, accountID, agentID string) (string, error) {
	var name string
	err := db.R.QueryRowContext(ctx, `SELECT name FROM agents WHERE account_id = $1 AND id = $2`, accountID, agentID).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return name, err
}
