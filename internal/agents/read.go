package agents

import (
	"context"
	"fmt"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/paging"
)

// Get returns a live agent of the account (store.ErrNotFound otherwise).
func (s *Service) Get(ctx context.Context, accountID, agentID string) (Agent, error) {
	return s.rows().Agent(ctx, accountID, agentID)
}

// List returns a page (1-based) of the account's agents, newest first, and
// the total.
func (s *Service) List(ctx context.Context, accountID string, page, limit int) ([]Agent, int, error) {
	return s.rows().Agents(ctx, accountID, paging.Offset(page, limit), limit)
}

// Delete soft-deletes an agent.
func (s *Service) Delete(ctx context.Context, accountID, agentID string) error {
	return deleteAgent(ctx, s.db, accountID, agentID)
}

// Definition returns an agent with its parsed workflow: what the runs area
// executes. Stored definitions were validated when saved, so a parse
// failure here means the row was damaged and is an error.
func (s *Service) Definition(ctx context.Context, accountID, agentID string) (Agent, *def.Definition, error) {
	a, err := s.rows().Agent(ctx, accountID, agentID)
	if err != nil {
		return Agent{}, nil, err
	}
	d, err := parseStored(a)
	return a, d, err
}

// RunDefinition is Definition for the runs area, which only reads the
// workflow: the parsed workflow may be shared with other runs of the
// agent (see parsedCache), and must not be changed.
func (s *Service) RunDefinition(ctx context.Context, accountID, agentID string) (Agent, *def.Definition, error) {
	a, err := s.rows().Agent(ctx, accountID, agentID)
	if err != nil {
		return Agent{}, nil, err
	}
	if d, ok := s.parsed.get(a.ID, a.Definition); ok {
		return a, d, nil
	}
	d, err := parseStored(a)
	if err == nil {
		s.parsed.put(a.ID, a.Definition, d)
	}
	return a, d, err
}

func parseStored(a Agent) (*def.Definition, error) {
	d, probs, err := def.ParseDefinition(a.Definition)
	if err != nil {
		return nil, fmt.Errorf("stored definition of agent %s: %w", a.ID, err)
	}
	if errs := probs.Errors(); len(errs) > 0 {
		return nil, fmt.Errorf("stored definition of agent %s: %v", a.ID, errs[0])
	}
	return d, nil
}

// AttachmentReferences is the agent's attachment-reference contract: what
// files a run needs, computed from the templates of its workflow.
func (s *Service) AttachmentReferences(ctx context.Context, accountID, agentID string) (def.AttachmentContract, error) {
	_, d, err := s.Definition(ctx, accountID, agentID)
	if err != nil {
		return def.AttachmentContract{}, err
	}
	return d.AttachmentContract(), nil
}
