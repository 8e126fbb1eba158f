package agents

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The schedules extension keeps its SQL beside the service that manages
// schedules (issue 31's vertical slices): adding, changing and removing
// one schedule of an agent's trigger. The trigger_schedules table is not
// the extension's alone: CreateAgent writes an agent's schedules with the
// agent (creation, import) in the agent's transaction (repo_triggers.go),
// and the runs area's scheduler reads the due ones and claims each fire.

// errScheduleLimit means an agent already has as many schedules as it may.
var errScheduleLimit = errors.New("schedule limit reached")

// scheduleRepo is the schedules extension's SQL.
type scheduleRepo struct{ db *store.DB }

// add adds a schedule to a live agent's trigger, unless the agent already
// has max schedules. Validation is the service's job.
func (q scheduleRepo) add(ctx context.Context, accountID, agentID string, s Schedule, max int) (Schedule, error) {
	now := store.Now()
	err := q.db.Tx(ctx, func(tx *sql.Tx) error {
		triggerID, err := store.One(ctx, tx, func(row store.Scanner) (id string, err error) { return id, row.Scan(&id) },
			`SELECT t.id FROM agent_triggers t JOIN agents a ON a.id = t.agent_id
			WHERE t.agent_id = $1 AND t.account_id = $2 AND a.deleted_at IS NULL`, agentID, accountID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM trigger_schedules WHERE trigger_id = $1`, triggerID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return errScheduleLimit
		}
		s.ID, s.CreatedAt = store.NewID(), now
		_, err = tx.ExecContext(ctx, `INSERT INTO trigger_schedules (id, account_id, agent_id, trigger_id, cron_expression,
			timezone, enabled, extra, next_run_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			s.ID, accountID, agentID, triggerID, s.CronExpression, s.Timezone, s.Enabled, store.NullJSON(s.Extra),
			timeOrNull(s.NextRunAt), now)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE agent_triggers SET updated_at = $1 WHERE id = $2`, now, triggerID)
		return err
	})
	return s, err
}

// update replaces a schedule's settings (cron expression, time zone,
// enabled, extra, next fire time) on a live agent of the account.
func (q scheduleRepo) update(ctx context.Context, accountID, agentID string, s Schedule) error {
	return q.db.Tx(ctx, func(tx *sql.Tx) error {
		err := store.Affected(ctx, tx, `UPDATE trigger_schedules SET cron_expression = $1, timezone = $2, enabled = $3,
			extra = $4, next_run_at = $5 WHERE id = $6 AND account_id = $7 AND agent_id = $8
			AND EXISTS (SELECT 1 FROM agents a WHERE a.id = $8 AND a.deleted_at IS NULL)`,
			s.CronExpression, s.Timezone, s.Enabled, store.NullJSON(s.Extra), timeOrNull(s.NextRunAt), s.ID, accountID, agentID)
		if err != nil {
			return err
		}
		return touchAgentTrigger(ctx, tx, accountID, agentID, store.Now())
	})
}

// remove deletes a schedule of a live agent of the account.
func (q scheduleRepo) remove(ctx context.Context, accountID, agentID, scheduleID string) error {
	return q.db.Tx(ctx, func(tx *sql.Tx) error {
		err := store.Affected(ctx, tx, `DELETE FROM trigger_schedules WHERE id = $1 AND account_id = $2 AND agent_id = $3
			AND EXISTS (SELECT 1 FROM agents a WHERE a.id = $3 AND a.deleted_at IS NULL)`, scheduleID, accountID, agentID)
		if err != nil {
			return err
		}
		return touchAgentTrigger(ctx, tx, accountID, agentID, store.Now())
	})
}

// touchAgentTrigger marks the agent's trigger changed, so its schedules'
// change shows in the trigger's updated_at.
func touchAgentTrigger(ctx context.Context, tx *sql.Tx, accountID, agentID string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE agent_triggers SET updated_at = $1 WHERE agent_id = $2 AND account_id = $3`, now, agentID, accountID)
	return err
}

// timeOrNull is a nullable time parameter, in UTC: NULL for nil.
func timeOrNull(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}

func (s *Service) schedules() scheduleRepo { return scheduleRepo{s.db} }
