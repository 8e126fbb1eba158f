package runs

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// The scheduler's reads and claims (FireDue) and which agents a trigger
// type starts (Fire). The schedules and triggers are the agents area's
// tables, so their SQL is its own (internal/agents/agentrow); the
// scheduler only reads the due ones and moves their next fire time.

// dueSchedule is a schedule whose next fire time has come.
type dueSchedule = agentrow.DueSchedule

// scheduleRepo is the scheduler's access to the schedules.
type scheduleRepo struct{ db *store.DB }

// due lists enabled schedules of live agents due at now, oldest first,
// paused agents' flagged (agentrow.DueSchedules).
func (q scheduleRepo) due(ctx context.Context, now time.Time, limit int) ([]dueSchedule, error) {
	return agentrow.DueSchedules(ctx, q.db.R, now, limit)
}

// claim moves a schedule from the fire time it was read at to the next
// one, once for a given fire time (agentrow.ClaimSchedule).
func (q scheduleRepo) claim(ctx context.Context, id string, firing, next time.Time) (bool, error) {
	return agentrow.ClaimSchedule(ctx, q.db.W, id, firing, next)
}

// agentsWithTrigger lists an account's live agents of a trigger type.
func (q scheduleRepo) agentsWithTrigger(ctx context.Context, accountID, triggerType string) ([]string, error) {
	return agentrow.LiveWithTrigger(ctx, q.db.R, accountID, triggerType)
}
