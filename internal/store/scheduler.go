package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// DueSchedule is a schedule whose next fire time has come.
type DueSchedule struct {
	ID, AccountID, AgentID   string
	CronExpression, Timezone string
	NextRunAt                time.Time
	AgentDisabled            bool
	// Input is the schedule's run input (nil: the trigger's default).
	Input *string
}

// DueSchedules lists enabled schedules of live agents due at now, oldest
// first. Paused agents' schedules are listed too (flagged), so the
// scheduler moves them on without running them: a paused agent must not
// fire a backlog when it is resumed.
func (db *DB) DueSchedules(ctx context.Context, now time.Time, limit int) ([]DueSchedule, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT s.id, s.account_id, s.agent_id, s.cron_expression, s.timezone, s.next_run_at, a.disabled_at IS NOT NULL, s.extra
		FROM trigger_schedules s JOIN agents a ON a.id = s.agent_id AND a.account_id = s.account_id
		WHERE s.enabled AND s.next_run_at IS NOT NULL AND s.next_run_at <= $1 AND a.deleted_at IS NULL
		ORDER BY s.next_run_at LIMIT $2`, now.UTC(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DueSchedule
	for rows.Next() {
		var (
			d     DueSchedule
			extra sql.NullString
		)
		if err := rows.Scan(&d.ID, &d.AccountID, &d.AgentID, &d.CronExpression, &d.Timezone, &d.NextRunAt, &d.AgentDisabled, &extra); err != nil {
			return nil, err
		}
		if extra.Valid {
			d.Input = ScheduleInput(json.RawMessage(extra.String))
		}
		d.NextRunAt = d.NextRunAt.UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}

// ClaimSchedule moves a schedule from the fire time it was read at to the
// next one. Only one caller can win for a given fire time, so a schedule
// fires once however many schedulers look at it.
func (db *DB) ClaimSchedule(ctx context.Context, id string, firing, next time.Time) (bool, error) {
	res, err := db.W.ExecContext(ctx, `UPDATE trigger_schedules SET next_run_at = $1 WHERE id = $2 AND next_run_at = $3`, next.UTC(), id, firing.UTC())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// AgentsWithTrigger lists an account's live agents of a trigger type.
func (db *DB) AgentsWithTrigger(ctx context.Context, accountID, triggerType string) ([]string, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT a.id FROM agents a JOIN agent_triggers t ON t.agent_id = a.id
		WHERE a.account_id = $1 AND t.trigger_type = $2 AND a.deleted_at IS NULL ORDER BY a.id`, accountID, triggerType)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// ScheduleInput reads a schedule's run input from its extra keys, where
// an imported schedule's "input" is kept and the schedules extension
// writes it, so it travels with the schedule through export and import.
// Nil when the schedule has none.
func ScheduleInput(extra json.RawMessage) *string {
	if len(extra) == 0 {
		return nil
	}
	var m struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal(extra, &m) != nil {
		return nil
	}
	return m.Input
}
