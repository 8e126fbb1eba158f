package protect

// Inbound protection keeps its own persistence (issue 31's vertical
// slices): the tables email_blocked_senders, inbound_email_rejections and
// inbound_email_state are read and written only here; inbound mail asks
// this Service.

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/store"
)

// BlockedSender is an entry of an account's inbound blocklist.
type BlockedSender struct {
	ID, AccountID string
	SenderEmail   string // an address, or a domain when MatchType is domain
	MatchType     string // address, domain
	Source        string // manual, governance
	Note          string
	CreatedAt     time.Time
}

// Rejection is an inbound message discarded before any run.
type Rejection struct {
	ID, AccountID, AgentID string
	Recipient, Sender      string
	SenderIP, Reason       string
	MessageID, Subject     string
	CreatedAt              time.Time
}

// state is an account's inbound settings and breaker position.
type state struct {
	AutoBlockMode string
	Paused        bool
}

// repo is the area's SQL.
type repo struct{ db *store.DB }

// orNull stores "" as NULL.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const blockedColumns = `id, account_id, sender_email, match_type, source, note, created_at`

func scanBlocked(row store.Scanner) (BlockedSender, error) {
	var (
		b    BlockedSender
		note sql.NullString
	)
	err := row.Scan(&b.ID, &b.AccountID, &b.SenderEmail, &b.MatchType, &b.Source, &note, &b.CreatedAt)
	b.Note, b.CreatedAt = note.String, b.CreatedAt.UTC()
	return b, err
}

// block adds an entry, or returns the one already there (the operation
// is idempotent).
func (r repo) block(ctx context.Context, b BlockedSender) (BlockedSender, error) {
	b.ID, b.CreatedAt = store.NewID(), store.Now()
	if _, err := r.db.W.ExecContext(ctx, `INSERT INTO email_blocked_senders (id, account_id, sender_email, match_type, source, note, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (account_id, match_type, sender_email) DO NOTHING`,
		b.ID, b.AccountID, b.SenderEmail, b.MatchType, b.Source, orNull(b.Note), b.CreatedAt); err != nil {
		return BlockedSender{}, err
	}
	return store.One(ctx, r.db.W, scanBlocked, `SELECT `+blockedColumns+` FROM email_blocked_senders
		WHERE account_id = $1 AND match_type = $2 AND sender_email = $3`, b.AccountID, b.MatchType, b.SenderEmail)
}

// blocked lists an account's blocklist, newest first, and its size.
func (r repo) blocked(ctx context.Context, accountID string, limit, offset int) ([]BlockedSender, int, error) {
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM email_blocked_senders WHERE account_id = $1`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanBlocked, `SELECT `+blockedColumns+` FROM email_blocked_senders
		WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, accountID, limit, offset)
	return out, total, err
}

// unblock removes an entry, or answers store.ErrNotFound.
func (r repo) unblock(ctx context.Context, accountID, id string) error {
	return store.Affected(ctx, r.db.W, `DELETE FROM email_blocked_senders WHERE account_id = $1 AND id = $2`, accountID, id)
}

// senderBlocked reports whether the account blocks address (lower case)
// or any of domains (the address's domain and its parents).
func (r repo) senderBlocked(ctx context.Context, accountID, address string, domains []string) (bool, error) {
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
	err := r.db.R.QueryRowContext(ctx, q, args...).Scan(&n)
	return n > 0, err
}

// recordRejection stores a rejection.
func (r repo) recordRejection(ctx context.Context, rj Rejection) (Rejection, error) {
	rj.ID, rj.CreatedAt = store.NewID(), store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO inbound_email_rejections (id, account_id, agent_id, recipient, sender, sender_ip, reason,
		message_id, subject, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		rj.ID, rj.AccountID, orNull(rj.AgentID), rj.Recipient, rj.Sender, orNull(rj.SenderIP), rj.Reason, orNull(rj.MessageID), orNull(rj.Subject), rj.CreatedAt)
	return rj, err
}

// rejections lists an account's rejections, newest first, optionally of
// one agent.
func (r repo) rejections(ctx context.Context, accountID, agentID string, limit int) ([]Rejection, error) {
	q := `SELECT id, account_id, agent_id, recipient, sender, sender_ip, reason, message_id, subject, created_at
		FROM inbound_email_rejections WHERE account_id = $1`
	args := []any{accountID}
	if agentID != "" {
		q += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(len(args)+1)
	args = append(args, limit)
	return store.All(ctx, r.db.R, func(row store.Scanner) (Rejection, error) {
		var (
			rj                        Rejection
			agent, ip, msgID, subject sql.NullString
		)
		err := row.Scan(&rj.ID, &rj.AccountID, &agent, &rj.Recipient, &rj.Sender, &ip, &rj.Reason, &msgID, &subject, &rj.CreatedAt)
		rj.AgentID, rj.SenderIP, rj.MessageID, rj.Subject, rj.CreatedAt = agent.String, ip.String, msgID.String, subject.String, rj.CreatedAt.UTC()
		return rj, err
	}, q, args...)
}

// pruneRejections deletes rejections older than before, across accounts
// (the retention sweep).
func (r repo) pruneRejections(ctx context.Context, before time.Time) error {
	_, err := r.db.W.ExecContext(ctx, `DELETE FROM inbound_email_rejections WHERE created_at < $1`, before)
	return err
}

// stateOf returns the account's state (defaults when never set).
func (r repo) stateOf(ctx context.Context, accountID string) (state, error) {
	st, err := store.One(ctx, r.db.R, func(row store.Scanner) (state, error) {
		var st state
		return st, row.Scan(&st.AutoBlockMode, &st.Paused)
	}, `SELECT auto_block_mode, paused FROM inbound_email_state WHERE account_id = $1`, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return state{AutoBlockMode: ModeDisabled}, nil
	}
	return st, err
}

// setAutoBlockMode stores the account's auto-block mode.
func (r repo) setAutoBlockMode(ctx context.Context, accountID, mode string) error {
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO inbound_email_state (account_id, auto_block_mode, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (account_id) DO UPDATE SET auto_block_mode = excluded.auto_block_mode, updated_at = excluded.updated_at`,
		accountID, mode, store.Now())
	return err
}

// setPaused arms or lifts the account's breaker; changed reports whether
// it was in the other position.
func (r repo) setPaused(ctx context.Context, accountID string, paused bool) (changed bool, err error) {
	now := store.Now()
	var pausedAt any
	if paused {
		pausedAt = now
	}
	if _, err := r.db.W.ExecContext(ctx, `INSERT INTO inbound_email_state (account_id, updated_at) VALUES ($1, $2)
		ON CONFLICT (account_id) DO NOTHING`, accountID, now); err != nil {
		return false, err
	}
	res, err := r.db.W.ExecContext(ctx, `UPDATE inbound_email_state SET paused = $1, paused_at = $2, updated_at = $3
		WHERE account_id = $4 AND paused <> $1`, paused, pausedAt, now, accountID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// pausedAccounts lists up to limit accounts whose inbox is paused, across
// accounts.
func (r repo) pausedAccounts(ctx context.Context, limit int) ([]string, error) {
	return store.All(ctx, r.db.R, store.ScanString, `SELECT account_id FROM inbound_email_state WHERE paused = $1 LIMIT $2`, true, limit)
}

// The breaker's backlog is the account's parked (queued) email runs. The
// runs table is the runs area's, so it answers these (runrow).

// queuedEmailRuns counts the account's parked email runs.
func (r repo) queuedEmailRuns(ctx context.Context, accountID string) (int, error) {
	return runrow.QueuedEmailRuns(ctx, r.db.R, accountID)
}

// oldestQueuedEmailRuns lists up to limit of the account's parked email
// runs, oldest first.
func (r repo) oldestQueuedEmailRuns(ctx context.Context, accountID string, limit int) ([]string, error) {
	return runrow.OldestQueuedEmailRuns(ctx, r.db.R, accountID, limit)
}
