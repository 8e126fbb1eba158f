package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// InboundEmail is a message the SMTP listener accepted for one agent,
// waiting in the durable queue (status queued) or done with (processed).
type InboundEmail struct {
	ID, AccountID, AgentID string
	Recipient, MailFrom    string
	HELO, SenderIP         string
	Raw                    []byte
	ReceivedAt             time.Time
	Status                 string // queued, processed
	Outcome, RunID         string
}

// Inbound email statuses.
const (
	InboundQueued    = "queued"
	InboundProcessed = "processed"
)

// EnqueueInboundEmailTx records an accepted message within tx, which also
// inserts its job (store.DB.TxConn), so the message and its job commit
// together or not at all.
func (db *DB) EnqueueInboundEmailTx(ctx context.Context, tx *sql.Tx, e InboundEmail) (InboundEmail, error) {
	e.ID, e.ReceivedAt, e.Status = NewID(), Now(), InboundQueued
	_, err := tx.ExecContext(ctx, `INSERT INTO inbound_emails (id, account_id, agent_id, recipient, mail_from, helo, sender_ip, raw,
		size_bytes, status, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		e.ID, e.AccountID, e.AgentID, e.Recipient, e.MailFrom, e.HELO, e.SenderIP, encodeRaw(e.Raw), len(e.Raw), e.Status, e.ReceivedAt)
	return e, err
}

// InboundEmail returns one of the account's queued or processed messages.
func (db *DB) InboundEmail(ctx context.Context, accountID, id string) (InboundEmail, error) {
	var (
		e            InboundEmail
		raw          string
		outcome, run sql.NullString
	)
	err := db.R.QueryRowContext(ctx, `SELECT id, account_id, agent_id, recipient, mail_from, helo, sender_ip, raw, status, outcome, run_id, received_at
		FROM inbound_emails WHERE account_id = $1 AND id = $2`, accountID, id).
		Scan(&e.ID, &e.AccountID, &e.AgentID, &e.Recipient, &e.MailFrom, &e.HELO, &e.SenderIP, &raw, &e.Status, &outcome, &run, &e.ReceivedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return InboundEmail{}, ErrNotFound
	}
	if err != nil {
		return InboundEmail{}, err
	}
	e.Outcome, e.RunID, e.ReceivedAt = outcome.String, run.String, e.ReceivedAt.UTC()
	e.Raw, err = decodeRaw(raw)
	return e, err
}

// FinishInboundEmail marks a queued message processed with its outcome
// and drops its raw text (the run holds what it needs). It returns
// ErrConflict when the message was already processed.
func (db *DB) FinishInboundEmail(ctx context.Context, accountID, id, outcome, runID string) error {
	res, err := db.W.ExecContext(ctx, `UPDATE inbound_emails SET status = $1, outcome = $2, run_id = $3, raw = '', processed_at = $4
		WHERE account_id = $5 AND id = $6 AND status = $7`, InboundProcessed, outcome, nullable(runID), Now(), accountID, id, InboundQueued)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrConflict
	}
	return nil
}

// PruneInboundEmails deletes processed messages and rejections older than
// before, across accounts (the retention sweep).
func (db *DB) PruneInboundEmails(ctx context.Context, before time.Time) error {
	if _, err := db.W.ExecContext(ctx, `DELETE FROM inbound_emails WHERE status = $1 AND received_at < $2`, InboundProcessed, before); err != nil {
		return err
	}
	_, err := db.W.ExecContext(ctx, `DELETE FROM inbound_email_rejections WHERE created_at < $1`, before)
	return err
}

// raw messages are kept as base64 text: one column type both dialects
// share, and safe for any byte a sender puts on the wire.
func encodeRaw(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
func decodeRaw(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(s)
}

// EmailRoute is the agent an address reaches and its trigger.
type EmailRoute struct {
	AccountID, AgentID, TriggerID, TriggerType string
}

// EmailRouteByAgentID finds the live agent with this id in any account:
// the shared domain's <agent_id>@ addresses carry no account. Only the
// mail listener calls it, to learn the account everything else is
// scoped by.
func (db *DB) EmailRouteByAgentID(ctx context.Context, agentID string) (EmailRoute, error) {
	return db.emailRoute(ctx, `a.id = $1`, agentID)
}

// EmailRouteInAccount finds the account's live agent with this id.
func (db *DB) EmailRouteInAccount(ctx context.Context, accountID, agentID string) (EmailRoute, error) {
	return db.emailRoute(ctx, `a.id = $1 AND a.account_id = $2`, agentID, accountID)
}

// EmailRouteByAlias finds the account's live agent whose trigger has this
// alias (lower case).
func (db *DB) EmailRouteByAlias(ctx context.Context, accountID, alias string) (EmailRoute, error) {
	return db.emailRoute(ctx, `a.id = (SELECT c.agent_id FROM email_trigger_configs c WHERE c.account_id = $1 AND c.alias = $2)
		AND a.account_id = $1`, accountID, alias)
}

func (db *DB) emailRoute(ctx context.Context, where string, args ...any) (EmailRoute, error) {
	var r EmailRoute
	err := db.R.QueryRowContext(ctx, `SELECT a.account_id, a.id, t.id, t.trigger_type FROM agents a
		JOIN agent_triggers t ON t.agent_id = a.id WHERE a.deleted_at IS NULL AND `+where, args...).
		Scan(&r.AccountID, &r.AgentID, &r.TriggerID, &r.TriggerType)
	if errors.Is(err, sql.ErrNoRows) {
		return EmailRoute{}, ErrNotFound
	}
	return r, err
}

// EmailTriggerConfig is the email settings of an EMAIL_RECEIVED trigger.
type EmailTriggerConfig struct {
	TriggerID, AccountID, AgentID string
	Alias                         string   // "" when none
	AllowedSenders                []string // nil: any sender
	IgnoreAutoGenerated           bool
	RequireSenderAuth             bool
	QueueOnQuota                  bool
}

// DefaultEmailTriggerConfig is what a trigger without settings behaves as.
func DefaultEmailTriggerConfig(accountID, agentID, triggerID string) EmailTriggerConfig {
	return EmailTriggerConfig{TriggerID: triggerID, AccountID: accountID, AgentID: agentID, IgnoreAutoGenerated: true, RequireSenderAuth: true}
}

// EmailTriggerConfigOf returns a trigger's email settings, or the defaults
// when none were set.
func (db *DB) EmailTriggerConfigOf(ctx context.Context, accountID, agentID, triggerID string) (EmailTriggerConfig, error) {
	c := DefaultEmailTriggerConfig(accountID, agentID, triggerID)
	var alias, allowed sql.NullString
	err := db.R.QueryRowContext(ctx, `SELECT alias, allowed_senders, ignore_auto_generated, require_sender_auth, queue_on_quota
		FROM email_trigger_configs WHERE account_id = $1 AND trigger_id = $2`, accountID, triggerID).
		Scan(&alias, &allowed, &c.IgnoreAutoGenerated, &c.RequireSenderAuth, &c.QueueOnQuota)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	c.Alias = alias.String
	if allowed.Valid {
		if err := json.Unmarshal([]byte(allowed.String), &c.AllowedSenders); err != nil {
			return c, err
		}
	}
	return c, nil
}

// PutEmailTriggerConfig stores a trigger's email settings; ErrConflict
// when another trigger of the account holds the alias.
func (db *DB) PutEmailTriggerConfig(ctx context.Context, c EmailTriggerConfig) error {
	var allowed any
	if c.AllowedSenders != nil {
		b, _ := json.Marshal(c.AllowedSenders)
		allowed = string(b)
	}
	_, err := db.W.ExecContext(ctx, `INSERT INTO email_trigger_configs (trigger_id, account_id, agent_id, alias, allowed_senders,
		ignore_auto_generated, require_sender_auth, queue_on_quota, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (trigger_id) DO UPDATE SET alias = excluded.alias, allowed_senders = excluded.allowed_senders,
		ignore_auto_generated = excluded.ignore_auto_generated, require_sender_auth = excluded.require_sender_auth,
		queue_on_quota = excluded.queue_on_quota, updated_at = excluded.updated_at`,
		c.TriggerID, c.AccountID, c.AgentID, nullable(c.Alias), allowed, c.IgnoreAutoGenerated, c.RequireSenderAuth, c.QueueOnQuota, Now())
	if isUniqueViolation(err) {
		return ErrConflict
	}
	return err
}

// BlockedSender is an entry of an account's inbound blocklist.
type BlockedSender struct {
	ID, AccountID string
	SenderEmail   string // an address, or a domain when MatchType is domain
	MatchType     string // address, domain
	Source        string // manual, governance
	Note          string
	CreatedAt     time.Time
}

// BlockSender adds an entry, or returns the one already there (the
// operation is idempotent).
func (db *DB) BlockSender(ctx context.Context, b BlockedSender) (BlockedSender, error) {
	b.ID, b.CreatedAt = NewID(), Now()
	if _, err := db.W.ExecContext(ctx, `INSERT INTO email_blocked_senders (id, account_id, sender_email, match_type, source, note, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (account_id, match_type, sender_email) DO NOTHING`,
		b.ID, b.AccountID, b.SenderEmail, b.MatchType, b.Source, nullable(b.Note), b.CreatedAt); err != nil {
		return BlockedSender{}, err
	}
	rows, err := db.W.QueryContext(ctx, `SELECT id, account_id, sender_email, match_type, source, note, created_at FROM email_blocked_senders
		WHERE account_id = $1 AND match_type = $2 AND sender_email = $3`, b.AccountID, b.MatchType, b.SenderEmail)
	if err != nil {
		return BlockedSender{}, err
	}
	out, err := scanBlocked(rows)
	if err != nil || len(out) == 0 {
		return BlockedSender{}, errors.Join(err, ErrNotFound)
	}
	return out[0], nil
}

// BlockedSenders lists an account's blocklist, newest first, and its size.
func (db *DB) BlockedSenders(ctx context.Context, accountID string, limit, offset int) ([]BlockedSender, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM email_blocked_senders WHERE account_id = $1`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT id, account_id, sender_email, match_type, source, note, created_at FROM email_blocked_senders
		WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := scanBlocked(rows)
	return out, total, err
}

func scanBlocked(rows *sql.Rows) ([]BlockedSender, error) {
	defer rows.Close()
	out := []BlockedSender{}
	for rows.Next() {
		var (
			b    BlockedSender
			note sql.NullString
		)
		if err := rows.Scan(&b.ID, &b.AccountID, &b.SenderEmail, &b.MatchType, &b.Source, &note, &b.CreatedAt); err != nil {
			return nil, err
		}
		b.Note, b.CreatedAt = note.String, b.CreatedAt.UTC()
		out = append(out, b)
	}
	return out, rows.Err()
}

// UnblockSender removes an entry, or answers ErrNotFound.
func (db *DB) UnblockSender(ctx context.Context, accountID, id string) error {
	res, err := db.W.ExecContext(ctx, `DELETE FROM email_blocked_senders WHERE account_id = $1 AND id = $2`, accountID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SenderBlocked reports whether the account blocks address (lower case)
// or any of domains (the address's domain and its parents).
func (db *DB) SenderBlocked(ctx context.Context, accountID, address string, domains []string) (bool, error) {
	args := []any{accountID, address}
	ph := make([]string, 0, len(domains))
	for _, d := range domains {
		args = append(args, d)
		ph = append(ph, "$"+strconv.Itoa(len(args)))
	}
	q := `SELECT COUNT(*) FROM email_blocked_senders WHERE account_id = $1 AND ((match_type = 'address' AND sender_email = $2)`
	if len(ph) > 0 {
		q += ` OR (match_type = 'domain' AND sender_email IN (` + strings.Join(ph, ", ") + `))`
	}
	q += `)`
	var n int
	err := db.R.QueryRowContext(ctx, q, args...).Scan(&n)
	return n > 0, err
}

// InboundRejection is an inbound message discarded before any run.
type InboundRejection struct {
	ID, AccountID, AgentID string
	Recipient, Sender      string
	SenderIP, Reason       string
	MessageID, Subject     string
	CreatedAt              time.Time
}

// RecordInboundRejection stores a rejection.
func (db *DB) RecordInboundRejection(ctx context.Context, r InboundRejection) (InboundRejection, error) {
	r.ID, r.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO inbound_email_rejections (id, account_id, agent_id, recipient, sender, sender_ip, reason,
		message_id, subject, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		r.ID, r.AccountID, nullable(r.AgentID), r.Recipient, r.Sender, nullable(r.SenderIP), r.Reason, nullable(r.MessageID), nullable(r.Subject), r.CreatedAt)
	return r, err
}

// InboundRejections lists an account's rejections, newest first,
// optionally of one agent.
func (db *DB) InboundRejections(ctx context.Context, accountID, agentID string, limit int) ([]InboundRejection, error) {
	q := `SELECT id, account_id, agent_id, recipient, sender, sender_ip, reason, message_id, subject, created_at
		FROM inbound_email_rejections WHERE account_id = $1`
	args := []any{accountID}
	if agentID != "" {
		q += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(len(args)+1)
	args = append(args, limit)
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []InboundRejection{}
	for rows.Next() {
		var (
			r                         InboundRejection
			agent, ip, msgID, subject sql.NullString
		)
		if err := rows.Scan(&r.ID, &r.AccountID, &agent, &r.Recipient, &r.Sender, &ip, &r.Reason, &msgID, &subject, &r.CreatedAt); err != nil {
			return nil, err
		}
		r.AgentID, r.SenderIP, r.MessageID, r.Subject, r.CreatedAt = agent.String, ip.String, msgID.String, subject.String, r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// InboundState is an account's inbound settings and breaker state.
type InboundState struct {
	AutoBlockMode string
	Paused        bool
}

// InboundStateOf returns the account's state (defaults when never set).
func (db *DB) InboundStateOf(ctx context.Context, accountID string) (InboundState, error) {
	st := InboundState{AutoBlockMode: "disabled"}
	err := db.R.QueryRowContext(ctx, `SELECT auto_block_mode, paused FROM inbound_email_state WHERE account_id = $1`, accountID).
		Scan(&st.AutoBlockMode, &st.Paused)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	return st, err
}

// SetAutoBlockMode stores the account's auto-block mode.
func (db *DB) SetAutoBlockMode(ctx context.Context, accountID, mode string) error {
	_, err := db.W.ExecContext(ctx, `INSERT INTO inbound_email_state (account_id, auto_block_mode, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (account_id) DO UPDATE SET auto_block_mode = excluded.auto_block_mode, updated_at = excluded.updated_at`,
		accountID, mode, Now())
	return err
}

// SetInboundPaused arms or lifts the account's breaker; changed reports
// whether it was in the other position.
func (db *DB) SetInboundPaused(ctx context.Context, accountID string, paused bool) (changed bool, err error) {
	now := Now()
	var pausedAt any
	if paused {
		pausedAt = now
	}
	if _, err := db.W.ExecContext(ctx, `INSERT INTO inbound_email_state (account_id, updated_at) VALUES ($1, $2)
		ON CONFLICT (account_id) DO NOTHING`, accountID, now); err != nil {
		return false, err
	}
	res, err := db.W.ExecContext(ctx, `UPDATE inbound_email_state SET paused = $1, paused_at = $2, updated_at = $3
		WHERE account_id = $4 AND paused <> $1`, paused, pausedAt, now, accountID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
