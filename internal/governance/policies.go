package governance

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
)

// The extension CRUD of policies (/governance/policies…). Writes are for
// the account's owners and admins; the API checks the role.

// PolicyInput is a policy to create, or the fields of one to change (nil:
// unchanged).
type PolicyInput struct {
	AgentID     *string
	Name        *string
	Description *string
	PolicyType  *string
	Enabled     *bool
	Config      json.RawMessage // nil: unchanged
}

// ErrInvalid wraps an input the service refuses: a 422 at the config whose
// sentence is the text of the error returned.
var ErrInvalid = fault.FieldSentinel([]any{"body", "config"}, "value_error", "invalid")

// CreatePolicy stores a new policy after compiling its config.
func (s *Service) CreatePolicy(ctx context.Context, accountID string, in PolicyInput) (GovernancePolicy, error) {
	p := GovernancePolicy{AccountID: accountID, Enabled: true, KnowledgeBaseIDs: []string{}}
	if in.AgentID != nil {
		p.AgentID = *in.AgentID
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return p, errors.Join(ErrInvalid, errors.New("name is required"))
	}
	apply(&p, in)
	if _, err := parseStored(p); err != nil {
		return p, err
	}
	p, err := s.repo.createPolicy(ctx, p)
	if errors.Is(err, errTooManyPolicies) {
		scope := "an account has at most %d account-wide governance policies"
		if p.AgentID != "" {
			scope = "an agent has at most %d governance policies of its own"
		}
		return p, errors.Join(ErrInvalid, fmt.Errorf(scope+"; delete one before adding another", MaxPoliciesPerScope))
	}
	return p, err
}

func apply(p *GovernancePolicy, in PolicyInput) {
	if in.Name != nil {
		p.Name = strings.TrimSpace(*in.Name)
	}
	if in.Description != nil {
		p.Description = in.Description
	}
	if in.PolicyType != nil {
		p.PolicyType = in.PolicyType
	}
	if in.Enabled != nil {
		p.Enabled = *in.Enabled
	}
	if in.Config != nil {
		p.Config = in.Config
	}
}

func parseStored(p GovernancePolicy) (*Policy, error) {
	typ := ""
	if p.PolicyType != nil {
		typ = *p.PolicyType
	}
	return Parse(typ, p.Config)
}

// Policy returns one policy of the account.
func (s *Service) Policy(ctx context.Context, accountID, id string) (GovernancePolicy, error) {
	return s.repo.policyByID(ctx, accountID, id)
}

// Policies lists a page of the account's policies (one agent's when agentID is set).
func (s *Service) Policies(ctx context.Context, accountID, agentID string, page, limit int) ([]GovernancePolicy, int, error) {
	return s.repo.policies(ctx, accountID, agentID, paging.Offset(page, limit), limit)
}

// UpdatePolicy changes the fields in is set.
func (s *Service) UpdatePolicy(ctx context.Context, accountID, id string, in PolicyInput) (GovernancePolicy, error) {
	p, err := s.repo.policyByID(ctx, accountID, id)
	if err != nil {
		return p, err
	}
	if in.Name != nil && strings.TrimSpace(*in.Name) == "" {
		return p, errors.Join(ErrInvalid, errors.New("name cannot be empty"))
	}
	apply(&p, in)
	if _, err := parseStored(p); err != nil {
		return p, err
	}
	return s.repo.updatePolicy(ctx, p)
}

// DeletePolicy removes a policy.
func (s *Service) DeletePolicy(ctx context.Context, accountID, id string) error {
	return s.repo.deletePolicy(ctx, accountID, id)
}

// Violations counts the account's recorded flags or blocks (action "" for
// both) of a run ("" for all runs).
func (s *Service) Violations(ctx context.Context, accountID, runID, action string) (int, error) {
	return s.repo.violationCount(ctx, accountID, runID, action)
}

// CreateAgentPolicies stores an imported agent's own policies in tx, the
// transaction that creates the agent (the agents area checked them and
// their number).
func (s *Service) CreateAgentPolicies(ctx context.Context, tx *sql.Tx, accountID, agentID string, ps []GovernancePolicy) error {
	return s.repo.createForAgent(ctx, tx, accountID, agentID, ps)
}

// AgentPolicies lists an agent's own policies, oldest first (an export's).
func (s *Service) AgentPolicies(ctx context.Context, accountID, agentID string) ([]GovernancePolicy, error) {
	return s.repo.agentPolicies(ctx, accountID, agentID)
}
