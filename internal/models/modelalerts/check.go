package modelalerts

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agentry/agentry/internal/agents/agentrow"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/models/lifecycle"
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
	a, err := s.Agents.Agent(ctx, accountID, agentID)
	if err != nil {
		return 0, err
	}
	return s.checkAgent(ctx, a)
}

func (s *Service) checkAgent(ctx context.Context, a agentrow.Agent) (int, error) {
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
			_, isNew, err := s.repo.recordAlert(ctx, ModelAlert{AccountID: a.AccountID, AgentID: a.ID,
				ModelID: al.ModelID, ModelName: al.ModelName, Type: string(al.Type),
				Message:          fmt.Sprintf("Agent %q: %s", a.Name, al.Message),
				SuccessorModelID: al.SuccessorID, SuccessorModelName: al.SuccessorName,
				DedupeKey: a.ID + "|" + al.Key})
			if err != nil {
				return created, err
			}
			if isNew {
				created++
				s.raise(ctx, a, al.Type, fmt.Sprintf("Agent %q: %s", a.Name, al.Message), map[string]any{
					"model_id": al.ModelID, "model_name": al.ModelName, "successor_model_id": al.SuccessorID,
					"successor_model_name": al.SuccessorName})
			}
		}
	}
	return created, nil
}

// raise passes a new lifecycle alert to the alerts area. Its failure is
// logged, not returned: the in-app alert is recorded either way, and a
// check that failed here would be retried and find nothing new.
func (s *Service) raise(ctx context.Context, a agentrow.Agent, typ lifecycle.AlertType, msg string, details map[string]any) {
	if s.Raiser == nil {
		return
	}
	if err := s.Raiser.Raise(ctx, Signal{AccountID: a.AccountID, Type: string(typ), AgentID: a.ID, Message: msg,
		Details: details}); err != nil {
		slog.WarnContext(ctx, "raise model lifecycle alert", "agent_id", a.ID, "type", typ, "err", err)
	}
}
