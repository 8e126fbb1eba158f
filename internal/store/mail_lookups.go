package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"
)

// What the mail areas read from tables the store keeps (agents, runs,
// memberships): their own tables' SQL lives beside each mail service.

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

// RunOfInboundEmail finds a run an earlier attempt at processing the
// message already started (its metadata names the message), so a retried
// job never starts a second one. since bounds the search to runs created
// after the message arrived.
func (db *DB) RunOfInboundEmail(ctx context.Context, accountID, agentID, emailID string, since time.Time) (string, error) {
	var id string
	err := db.R.QueryRowContext(ctx, `SELECT id FROM runs WHERE account_id = $1 AND agent_id = $2 AND created_at >= $3
		AND metadata LIKE $4 ORDER BY id LIMIT 1`, accountID, agentID, since, `%"inbound_email_id":"`+emailID+`"%`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// QueuedEmailRuns counts the account's parked (queued) email runs.
func (db *DB) QueuedEmailRuns(ctx context.Context, accountID string) (int, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE account_id = $1 AND status = $2 AND trigger_type = 'email_received'`,
		accountID, RunQueued).Scan(&n)
	return n, err
}

// OldestQueuedEmailRuns lists up to limit of the account's parked email
// runs, oldest first.
func (db *DB) OldestQueuedEmailRuns(ctx context.Context, accountID string, limit int) ([]string, error) {
	return db.mailIDs(ctx, `SELECT id FROM runs WHERE account_id = $1 AND status = $2 AND trigger_type = 'email_received'
		ORDER BY id LIMIT $3`, accountID, RunQueued, limit)
}

// AccountsWithQueuedEmailRuns lists up to limit accounts holding parked
// email runs, across accounts: the catch-up sweep's work list (with the
// accounts whose inbox is paused, which mail/protect answers).
func (db *DB) AccountsWithQueuedEmailRuns(ctx context.Context, limit int) ([]string, error) {
	return db.mailIDs(ctx, `SELECT DISTINCT account_id FROM runs WHERE status = $1 AND trigger_type = 'email_received' LIMIT $2`,
		RunQueued, limit)
}

// EmailRunsStartedSince counts the account's email runs created or
// started since t that are not parked: what the hourly quota spends. The
// count stops at upTo (when > 0): the quota only asks whether it is spent.
// Runs created since t and runs created before but started since are
// counted apart, so each half is one range of the quota indexes.
func (db *DB) EmailRunsStartedSince(ctx context.Context, accountID string, t time.Time, upTo int) (int, error) {
	limit := ""
	if upTo > 0 {
		limit = " LIMIT " + strconv.Itoa(upTo)
	}
	var created, startedLater int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE account_id = $1 AND trigger_type = 'email_received'
		AND created_at >= $2 AND status <> $3`+limit+`) q`, accountID, t, RunQueued).Scan(&created)
	if err != nil || (upTo > 0 && created >= upTo) {
		return created, err
	}
	err = db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE account_id = $1 AND trigger_type = 'email_received'
		AND started_at >= $2 AND created_at < $2 AND status <> $3`+limit+`) q`, accountID, t, RunQueued).Scan(&startedLater)
	n := created + startedLater
	if upTo > 0 && n > upTo {
		n = upTo
	}
	return n, err
}

func (db *DB) mailIDs(ctx context.Context, q string, args ...any) ([]string, error) {
	return All(ctx, db.R, func(r Scanner) (id string, err error) { return id, r.Scan(&id) }, q, args...)
}
