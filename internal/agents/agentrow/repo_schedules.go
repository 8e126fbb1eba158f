package agentrow

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The schedules as the runs area's scheduler fires them: which are due,
// and the claim that makes each fire once. The schedules themselves are
// managed by the agents service and written with the agent.

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
func DueSchedules(ctx context.Context, q store.Querier, now time.Time, limit int) ([]DueSchedule, error) {
	return store.All(ctx, q, func(row store.Scanner) (DueSchedule, error) {
		var (
			d     DueSchedule
			extra sql.NullString
		)
		if err := row.Scan(&d.ID, &d.AccountID, &d.AgentID, &d.CronExpression, &d.Timezone, &d.NextRunAt, &d.AgentDisabled, &extra); err != nil {
			return DueSchedule{}, err
		}
		if extra.Valid {
			d.Input = ScheduleInput(json.RawMessage(extra.String))
		}
		d.NextRunAt = d.NextRunAt.UTC()
		return d, nil
	}, `SELECT s.id, s.account_id, s.agent_id, s.cron_expression, s.timezone, s.next_run_at, a.disabled_at IS NOT NULL, s.extra
		FROM trigger_schedules s JOIN agents a ON a.id = s.agent_id AND a.account_id = s.account_id
		WHERE s.enabled AND s.next_run_at IS NOT NULL AND s.next_run_at <= $1 AND a.deleted_at IS NULL
		ORDER BY s.next_run_at LIMIT $2`, now.UTC(), limit)
}

// ClaimSchedule moves a schedule from the fire time it was read at to the
// next one. Only one caller can win for a given fire time, so a schedule
// fires once however many schedulers look at it.
func ClaimSchedule(ctx context.Context, q store.Querier, id string, firing, next time.Time) (bool, error) {
	n, err := store.RowsAffected(q.ExecContext(ctx, `UPDATE trigger_schedules SET next_run_at = $1 WHERE id = $2 AND next_run_at = $3`,
		next.UTC(), id, firing.UTC()))
	return n == 1, err
}
