package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// The scheduler keeps its SQL beside FireDue (issue 31's vertical slices):
// which schedules are due and the claim that makes each fire once, and
// which agents a trigger type starts (Fire). The schedules themselves are
// the agents area's (an agent's trigger, managed by internal/agents and
// written with the agent by the store); the scheduler only reads the due
// ones and moves their next fire time, so these queries are the runs
// area's, the one that runs schedules.

// dueSchedule is a schedule whose next fire time has come.
type dueSchedule struct {
	ID, AccountID, AgentID   string
	CronExpression, Timezone string
	NextRunAt                time.Time
	AgentDisabled            bool
	// Input is the schedule's run input (nil: the trigger's default).
	Input *string
}

// scheduleRepo is the scheduler's SQL.
type scheduleRepo struct{ db *store.DB }

// due lists enabled schedules of live agents due at now, oldest first.
// Paused agents' schedules are listed too (flagged), so the scheduler
// moves them on without running them: a paused agent must not fire a
// backlog when it is resumed.
func (q scheduleRepo) due(ctx context.Context, now time.Time, limit int) ([]dueSchedule, error) {
	return store.All(ctx, q.db.R, func(row store.Scanner) (dueSchedule, error) {
		var (
			d     dueSchedule
			extra sql.NullString
		)
		if err := row.Scan(&d.ID, &d.AccountID, &d.AgentID, &d.CronExpression, &d.Timezone, &d.NextRunAt, &d.AgentDisabled, &extra); err != nil {
			return dueSchedule{}, err
		}
		if extra.Valid {
			d.Input = agentrow.ScheduleInput(json.RawMessage(extra.String))
		}
		d.NextRunAt = d.NextRunAt.UTC()
		return d, nil
	}, `SELECT s.id, s.account_id, s.agent_id, s.cron_expression, s.timezone, s.next_run_at, a.disabled_at IS NOT NULL, s.extra
		FROM trigger_schedules s JOIN agents a ON a.id = s.agent_id AND a.account_id = s.account_id
		WHERE s.enabled AND s.next_run_at IS NOT NULL AND s.next_run_at <= $1 AND a.deleted_at IS NULL
		ORDER BY s.next_run_at LIMIT $2`, now.UTC(), limit)
}

// claim moves a schedule from the fire time it was read at to the next
// one. Only one caller can win for a given fire time, so a schedule fires
// once however many schedulers look at it.
func (q scheduleRepo) claim(ctx context.Context, id string, firing, next time.Time) (bool, error) {
	n, err := store.RowsAffected(q.db.W.ExecContext(ctx, `UPDATE trigger_schedules SET next_run_at = $1 WHERE id = $2 AND next_run_at = $3`,
		next.UTC(), id, firing.UTC()))
	return n == 1, err
}

// agentsWithTrigger lists an account's live agents of a trigger type.
func (q scheduleRepo) agentsWithTrigger(ctx context.Context, accountID, triggerType string) ([]string, error) {
	return store.All(ctx, q.db.R, func(row store.Scanner) (id string, err error) { return id, row.Scan(&id) },
		`SELECT a.id FROM agents a JOIN agent_triggers t ON t.agent_id = a.id
		WHERE a.account_id = $1 AND t.trigger_type = $2 AND a.deleted_at IS NULL ORDER BY a.id`, accountID, triggerType)
}
