package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// ErrScheduleLimit means an agent already has as many schedules as it may.
var ErrScheduleLimit = errors.New("schedule limit reached")

// AddSchedule adds a schedule to a live agent's trigger, unless the agent
// already has max schedules. Validation is the agents service's job.
func (db *DB) AddSchedule(ctx context.Context, accountID, agentID string, s Schedule, max int) (Schedule, error) {
	now := Now()
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var triggerID string
		err := tx.QueryRowContext(ctx, `SELECT t.id FROM agent_triggers t JOIN agents a ON a.id = t.agent_id
			WHERE t.agent_id = $1 AND t.account_id = $2 AND a.deleted_at IS NULL`, agentID, accountID).Scan(&triggerID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM trigger_schedules WHERE trigger_id = $1`, triggerID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return ErrScheduleLimit
		}
		s.ID, s.CreatedAt = NewID(), now
		_, err = tx.ExecContext(ctx, `INSERT INTO trigger_schedules (id, account_id, agent_id, trigger_id, cron_expression,
			timezone, enabled, extra, next_run_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			s.ID, accountID, agentID, triggerID, s.CronExpression, s.Timezone, s.Enabled, nullableJSON(s.Extra),
			nullableTime(s.NextRunAt), now)
		if err != nil {
			return err
		}
		return touchTrigger(ctx, tx, triggerID, now)
	})
	return s, err
}

// UpdateSchedule replaces a schedule's settings (cron expression, time
// zone, enabled, extra, next fire time) on a live agent of the account.
func (db *DB) UpdateSchedule(ctx context.Context, accountID, agentID string, s Schedule) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE trigger_schedules SET cron_expression = $1, timezone = $2, enabled = $3,
			extra = $4, next_run_at = $5 WHERE id = $6 AND account_id = $7 AND agent_id = $8
			AND EXISTS (SELECT 1 FROM agents a WHERE a.id = $8 AND a.deleted_at IS NULL)`,
			s.CronExpression, s.Timezone, s.Enabled, nullableJSON(s.Extra), nullableTime(s.NextRunAt), s.ID, accountID, agentID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		return touchAgentTrigger(ctx, tx, accountID, agentID, Now())
	})
}

// DeleteSchedule removes a schedule of a live agent of the account.
func (db *DB) DeleteSchedule(ctx context.Context, accountID, agentID, scheduleID string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM trigger_schedules WHERE id = $1 AND account_id = $2 AND agent_id = $3
			AND EXISTS (SELECT 1 FROM agents a WHERE a.id = $3 AND a.deleted_at IS NULL)`, scheduleID, accountID, agentID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		return touchAgentTrigger(ctx, tx, accountID, agentID, Now())
	})
}

func touchTrigger(ctx context.Context, tx *sql.Tx, triggerID string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE agent_triggers SET updated_at = $1 WHERE id = $2`, now, triggerID)
	return err
}

func touchAgentTrigger(ctx context.Context, tx *sql.Tx, accountID, agentID string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE agent_triggers SET updated_at = $1 WHERE agent_id = $2 AND account_id = $3`, now, agentID, accountID)
	return err
}
