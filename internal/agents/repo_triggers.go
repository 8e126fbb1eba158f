package agents

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// An agent's trigger and its schedules, written with the agent (creation,
// import) in its transaction and read back whole. One schedule's change
// is the schedules extension's (repo_schedules.go); the runs area's
// scheduler reads the due ones.

func insertTrigger(ctx context.Context, tx *sql.Tx, t Trigger, now time.Time) (Trigger, error) {
	t.ID, t.CreatedAt, t.UpdatedAt = store.NewID(), now, now
	if len(t.Config) == 0 {
		t.Config = json.RawMessage(`{}`)
	}
	if err := agentrow.InsertTrigger(ctx, tx, t.ID, t.AccountID, t.AgentID, t.Type, t.Config, now); err != nil {
		return Trigger{}, err
	}
	for i := range t.Schedules {
		s := &t.Schedules[i]
		s.ID, s.CreatedAt = store.NewID(), now
		if _, err := tx.ExecContext(ctx, `INSERT INTO trigger_schedules (id, account_id, agent_id, trigger_id, cron_expression,
			timezone, enabled, extra, next_run_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			s.ID, t.AccountID, t.AgentID, t.ID, s.CronExpression, s.Timezone, s.Enabled, store.NullJSON(s.Extra),
			timeOrNull(s.NextRunAt), now); err != nil {
			return Trigger{}, err
		}
	}
	return t, nil
}

// AgentTrigger returns the trigger of a live agent of the account, with its
// schedules in the order they were created.
func (r Repo) AgentTrigger(ctx context.Context, accountID, agentID string) (Trigger, error) {
	t, err := store.One(ctx, r.db.R, func(row store.Scanner) (t Trigger, err error) {
		var cfg string
		err = row.Scan(&t.ID, &t.AccountID, &t.AgentID, &t.Type, &cfg, &t.CreatedAt, &t.UpdatedAt)
		t.Config = json.RawMessage(cfg)
		return t, err
	}, `SELECT t.id, t.account_id, t.agent_id, t.trigger_type, t.config, t.created_at, t.updated_at
		FROM agent_triggers t JOIN agents a ON a.id = t.agent_id
		WHERE t.agent_id = $1 AND t.account_id = $2 AND a.deleted_at IS NULL`, agentID, accountID)
	if err != nil {
		return Trigger{}, err
	}
	schedules, err := store.All(ctx, r.db.R, func(row store.Scanner) (s Schedule, err error) {
		var (
			extra sql.NullString
			next  sql.NullTime
		)
		if err := row.Scan(&s.ID, &s.CronExpression, &s.Timezone, &s.Enabled, &extra, &next, &s.CreatedAt); err != nil {
			return s, err
		}
		if extra.Valid {
			s.Extra = json.RawMessage(extra.String)
		}
		s.NextRunAt, s.CreatedAt = store.TimeOrNil(next), s.CreatedAt.UTC()
		return s, nil
	}, `SELECT id, cron_expression, timezone, enabled, extra, next_run_at, created_at
		FROM trigger_schedules WHERE trigger_id = $1 ORDER BY created_at, id`, t.ID)
	if err != nil {
		return Trigger{}, err
	}
	if len(schedules) > 0 { // nil when there are none, as a trigger without schedules has always been read
		t.Schedules = schedules
	}
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, nil
}
