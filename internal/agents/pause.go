package agents

import (
	"context"
)

// Disable pauses an agent, so that no trigger starts it. Live agents that
// call it would then fail their runs, so while any exists the pause is
// refused with a *CallersError naming them.
func (s *Service) Disable(ctx context.Context, accountID, agentID, userID string) (Agent, error) {
	a, callers, err := s.rows().DisableAgent(ctx, accountID, agentID, userID, ReasonManual)
	if err != nil {
		return Agent{}, err
	}
	if len(callers) > 0 {
		return Agent{}, &CallersError{AgentID: agentID, Callers: toCallers(callers)}
	}
	return a, nil
}

// Enable resumes a paused agent, whatever paused it.
func (s *Service) Enable(ctx context.Context, accountID, agentID, userID string) (Agent, error) {
	return s.rows().EnableAgent(ctx, accountID, agentID, userID)
}

// Callers lists the live agents that call this one through call_agent steps.
func (s *Service) Callers(ctx context.Context, accountID, agentID string) ([]Caller, error) {
	if _, err := s.rows().Agent(ctx, accountID, agentID); err != nil {
		return nil, err
	}
	callers, err := s.rows().AgentCallers(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	return toCallers(callers), nil
}

// Runnable says whether an agent may run: nil when it may, store.ErrNotFound
// when the account has no such agent, and a *DisabledError (errors.Is
// ErrAgentDisabled) when it is paused. (Runs read the paused state with the
// agent itself, runs.Agent.Disabled, and refuse with runs.ErrDisabled.)
func (s *Service) Runnable(ctx context.Context, accountID, agentID string) error {
	a, err := s.rows().Agent(ctx, accountID, agentID)
	if err != nil {
		return err
	}
	if a.DisabledAt != nil {
		return &DisabledError{AgentID: a.ID, Reason: a.DisabledReason, Since: *a.DisabledAt}
	}
	return nil
}

func toCallers(names []AgentName) []Caller {
	out := make([]Caller, len(names))
	for i, n := range names {
		out[i] = Caller{ID: n.ID, Name: n.Name, Disabled: n.Disabled}
	}
	return out
}
