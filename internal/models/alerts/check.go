package alerts

import (
	"context"
	"fmt"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/store"
)

// CheckAgent raises the lifecycle alerts the models of one agent warrant
// now (deprecated, nearing or past sunset, a newer model available), for
// its account and agent. Each alert is recorded once per change of facts,
// so calling it on every save, and daily from the sweep, repeats nothing.
// It returns how many alerts are new; store.ErrNotFound if the agent is
// not the account's.
//
// The agents area calls it after an agent's definition is saved.
func (s *Service) CheckAgent(ctx context.Context, accountID, agentID string) (int, error) {
	a, err := s.DB.Agent(ctx, accountID, agentID)
	if err != nil {
		return 0, err
	}
	return s.checkAgent(ctx, a)
}

func (s *Service) checkAgent(ctx context.Context, a store.Agent) (int, error) {
	d, _, err := def.ParseDefinition(a.Definition)
	if err != nil {
		return 0, nil // nothing readable to check; the agents area reports the definition
	}
	now := s.now()
	created := 0
	for _, use := range modelsInUse(s.Catalog, d, false) {
		found, err := lifecycle.Alerts(s.Catalog, use.ModelID, now, s.Policy)
		if err != nil {
			return created, err
		}
		for _, al := range found {
			_, isNew, err := s.DB.RecordModelAlert(ctx, store.ModelAlert{AccountID: a.AccountID, AgentID: a.ID,
				ModelID: al.ModelID, ModelName: al.ModelName, Type: string(al.Type),
				Message:          fmt.Sprintf("Agent %q: %s", a.Name, al.Message),
				SuccessorModelID: al.SuccessorID, SuccessorModelName: al.SuccessorName,
				DedupeKey: a.ID + "|" + al.Key})
			if err != nil {
				return created, err
			}
			if isNew {
				created++
			}
		}
	}
	return created, nil
}
