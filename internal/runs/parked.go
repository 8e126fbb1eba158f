package runs

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/telemetry"
)

// FireParked is Fire for a trigger over its quota: each run is recorded
// as queued, with no job, so it spends nothing until ReleaseQueued hands
// it to the workers (the mail area's catch-up sweep does, as the quota
// allows) or Cancel fails it.
func (s *Service) FireParked(ctx context.Context, accountID, triggerType, onlyAgent string, input string, metadata map[string]any) ([]Run, error) {
	ids, err := s.triggered(ctx, accountID, triggerType, onlyAgent)
	if err != nil {
		return nil, err
	}
	var parked []Run
	for _, id := range ids {
		a, err := s.Agents.ForRun(ctx, accountID, id)
		if err != nil || a.Disabled {
			continue
		}
		if missing := s.Engine.Registry.Missing(a.Definition); len(missing) > 0 {
			return parked, fmt.Errorf("%w: this agent uses %s, which this server does not provide yet", ErrUnavailableStep, strings.Join(missing, ", "))
		}
		in := input
		run := traced(ctx, Run{AccountID: accountID, AgentID: id, Status: RunQueued, TriggerType: triggerType, Input: &in, Metadata: metadata})
		err = s.DB.Tx(ctx, func(tx *sql.Tx) error {
			r, err := s.Repo.CreateRunTx(ctx, tx, run)
			if err != nil {
				return err
			}
			run = r
			_, err = s.Bus.AppendTx(ctx, tx, r.AccountID, r.ID, events.New{Type: "status", Data: map[string]any{"run_id": r.ID, "status": r.Status}})
			return err
		})
		if err != nil {
			return parked, err
		}
		s.Bus.Wake(run.ID)
		telemetry.RunCreated(run.TriggerType)
		parked = append(parked, run)
	}
	return parked, nil
}

// ReleaseQueued hands a parked run to the workers, which take it from
// queued like any pending run. A run no longer queued is left alone.
func (s *Service) ReleaseQueued(ctx context.Context, accountID, runID string) error {
	r, err := s.Repo.Run(ctx, accountID, runID)
	if err != nil {
		return err
	}
	if r.Status != RunQueued {
		return nil
	}
	return s.enqueue(ctx, r, "")
}
