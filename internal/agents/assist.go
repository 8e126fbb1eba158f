package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// What the assistants (internal/solutions) need of this area: the checks a
// generated workflow must pass, exactly those of PUT /agents/{id}/definition
// and of an import by POST /agents, without saving anything.

// Planned tells validation that an entity a plan will create before the
// agent exists (a knowledge base two actions earlier) counts as existing.
type Planned func(kind def.RefKind, id string) bool

// CheckDefinition validates a definition for an agent (agentID may be "")
// with a trigger, as PUT …/definition does. It returns the error messages,
// each prefixed with the path of the problem; none means it would be saved.
func (s *Service) CheckDefinition(ctx context.Context, accountID, agentID, trigger string, definition json.RawMessage, planned Planned) ([]string, error) {
	_, probs, err := def.CheckDefinition(ctx, definition, def.ValidateOptions{Trigger: def.TriggerType(trigger), AgentID: agentID,
		Resolver: s.planResolver(accountID, planned), ServerRules: s.serverRules()})
	if err != nil {
		return nil, err
	}
	return messages(probs.Errors()), nil
}

// CheckImport validates an agent_definition payload as POST /agents would
// import it (trigger "" keeps the payload's).
func (s *Service) CheckImport(ctx context.Context, accountID, trigger string, payload json.RawMessage, planned Planned) ([]string, error) {
	_, err := def.Import(ctx, payload, def.ImportOptions{Mode: def.ModeCreate, Trigger: def.TriggerType(trigger),
		Resolver: s.planResolver(accountID, planned), ServerRules: s.serverRules()})
	var ie *def.ImportError
	if errors.As(err, &ie) {
		if len(ie.Errors) == 0 {
			return []string{ie.Message}, nil
		}
		out := make([]string, len(ie.Errors))
		for i, e := range ie.Errors {
			out[i] = fmt.Sprintf("%s: %s", e.Path, e.Message)
		}
		return out, nil
	}
	return nil, err
}

func messages(ps def.Problems) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s: %s", p.Path, p.Message))
	}
	return out
}

func (s *Service) planResolver(accountID string, planned Planned) def.Resolver {
	real := s.resolver(accountID)
	return def.ResolverFunc(func(ctx context.Context, kind def.RefKind, id string) (bool, error) {
		if planned != nil && planned(kind, id) {
			return true, nil
		}
		return real.Exists(ctx, kind, id)
	})
}
