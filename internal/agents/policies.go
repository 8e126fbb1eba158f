package agents

import (
	"context"
	"database/sql"
	"encoding/json"
)

// Policy is an agent's own governance policy, as an import creates it and
// an export writes it back.
type Policy struct {
	Name             string
	Description      *string
	PolicyType       *string
	Enabled          bool
	Config           json.RawMessage
	KnowledgeBaseIDs []string
	// Extra keeps the keys of an imported policy this version does not
	// model, so an export gives them back.
	Extra json.RawMessage
}

// Policies keeps agents' own governance policies: the governance area's,
// which the server adapts (this area does not import it).
type Policies interface {
	// CreateWithAgent stores an imported agent's policies in the
	// transaction that creates the agent.
	CreateWithAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string, ps []Policy) error
	// OfAgent lists an agent's own policies, oldest first.
	OfAgent(ctx context.Context, accountID, agentID string) ([]Policy, error)
	// MaxPerAgent is how many policies of its own an agent may have.
	MaxPerAgent() int
}

// withPolicies is the write that stores an import's policies with the new
// agent (none when there are none).
func (s *Service) withPolicies(accountID string, ps []Policy) []func(ctx context.Context, tx *sql.Tx, agentID string) error {
	if len(ps) == 0 {
		return nil
	}
	return []func(ctx context.Context, tx *sql.Tx, agentID string) error{func(ctx context.Context, tx *sql.Tx, agentID string) error {
		return s.cfg.Policies.CreateWithAgent(ctx, tx, accountID, agentID, ps)
	}}
}
