package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// Trigger is what starts an agent's runs: its type, its settings as a JSON
// object, and, for schedule triggers, its cron schedules.
type Trigger struct {
	ID        string
	AccountID string
	AgentID   string
	Type      string
	Config    json.RawMessage // JSON object; "{}" when empty
	Schedules []Schedule
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Schedule is one cron schedule of a trigger. Validation (cron syntax, time
// zone) and NextRunAt are the agents service's job.
type Schedule struct {
	ID             string
	CronExpression string
	Timezone       string
	Enabled        bool
	Extra          json.RawMessage // other keys of an imported schedule; nil when none
	NextRunAt      *time.Time
	CreatedAt      time.Time
}

func insertTrigger(ctx context.Context, tx *sql.Tx, t Trigger, now time.Time) (Trigger, error) {
	t.ID, t.CreatedAt, t.UpdatedAt = NewID(), now, now
	if len(t.Config) == 0 {
		t.Config = json.RawMessage(`{}`)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_triggers (id, account_id, agent_id, trigger_type, config, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, t.ID, t.AccountID, t.AgentID, t.Type, string(t.Config), now); err != nil {
		return Trigger{}, err
	}
	for i := range t.Schedules {
		s := &t.Schedules[i]
		s.ID, s.CreatedAt = NewID(), now
		if _, err := tx.ExecContext(ctx, `INSERT INTO trigger_schedules (id, account_id, agent_id, trigger_id, cron_expression,
			timezone, enabled, extra, next_run_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			s.ID, t.AccountID, t.AgentID, t.ID, s.CronExpression, s.Timezone, s.Enabled, nullableJSON(s.Extra),
			nullableTime(s.NextRunAt), now); err != nil {
			return Trigger{}, err
		}
	}
	return t, nil
}

// AgentTrigger returns the trigger of a live agent of the account, with its
// schedules in the order they were created.
func (db *DB) AgentTrigger(ctx context.Context, accountID, agentID string) (Trigger, error) {
	var (
		t   Trigger
		cfg string
	)
	err := db.R.QueryRowContext(ctx, `SELECT t.id, t.account_id, t.agent_id, t.trigger_type, t.config, t.created_at, t.updated_at
		FROM agent_triggers t JOIN agents a ON a.id = t.agent_id
		WHERE t.agent_id = $1 AND t.account_id = $2 AND a.deleted_at IS NULL`, agentID, accountID).
		Scan(&t.ID, &t.AccountID, &t.AgentID, &t.Type, &cfg, &t.CreatedAt, &t.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Trigger{}, ErrNotFound
	}
	if err != nil {
		return Trigger{}, err
	}
	t.Config = json.RawMessage(cfg)
	rows, err := db.R.QueryContext(ctx, `SELECT id, cron_expression, timezone, enabled, extra, next_run_at, created_at
		FROM trigger_schedules WHERE trigger_id = $1 ORDER BY created_at, id`, t.ID)
	if err != nil {
		return Trigger{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			s     Schedule
			extra sql.NullString
			next  sql.NullTime
		)
		if err := rows.Scan(&s.ID, &s.CronExpression, &s.Timezone, &s.Enabled, &extra, &next, &s.CreatedAt); err != nil {
			return Trigger{}, err
		}
		if extra.Valid {
			s.Extra = json.RawMessage(extra.String)
		}
		if next.Valid {
			n := next.Time.UTC()
			s.NextRunAt = &n
		}
		s.CreatedAt = s.CreatedAt.UTC()
		t.Schedules = append(t.Schedules, s)
	}
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, rows.Err()
}
