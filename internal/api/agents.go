package api

import (
	"context"
	"encoding/json"

	"github.com/agentry/agentry/internal/agents"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
	"github.com/danielgtaylor/huma/v2"
)

// Agents: create (blank, from a template, or importing an export), read,
// list, update and delete. The rules live in the agents service; these
// handlers translate requests and errors.

// agents returns the agents service.
func (s *Server) agents() *agents.Service { return s.deps.Agents }

// agentIDPath is the input of operations on one agent. (huma does not read
// parameters of embedded structs: inputs with more declare AgentID again.)
type agentIDPath struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
}

type agentOutput struct{ Body AgentSummaryResponse }

type listAgentsInput struct {
	Page  int `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number"`
	Limit int `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page"`
}

type listAgentsOutput struct{ Body any }

func (s *Server) listAgents(ctx context.Context, in *listAgentsInput) (*listAgentsOutput, error) {
	list, total, err := s.agents().List(ctx, principal(ctx).AccountID, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]AgentSummaryResponse, len(list))
	for i, a := range list {
		items[i] = agentSummary(a, nil)
	}
	// The contract's legacy shape of this list already is {data, pagination}.
	return &listAgentsOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), func(items []AgentSummaryResponse, p Pagination) any {
		return AgentListResponse{Data: items, Pagination: p}
	})}, nil
}

type createAgentInput struct{ Body CreateAgentRequest }

func (s *Server) createAgent(ctx context.Context, in *createAgentInput) (*agentOutput, error) {
	p := principal(ctx)
	b := in.Body
	res, err := s.agents().Create(ctx, agents.CreateInput{AccountID: p.AccountID, UserID: p.UserID, Name: b.Name,
		Description: b.Description, TriggerType: b.TriggerType, Template: b.AgentTemplate, Definition: b.AgentDefinition,
		EntityRemap: b.EntityRemap, KnowledgeBaseID: b.KnowledgeBaseID})
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentOutput{Body: agentSummary(res.Agent, res.ImportWarnings)}, nil
}

func (s *Server) getAgent(ctx context.Context, in *agentIDPath) (*agentOutput, error) {
	a, err := s.agents().Get(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	out := agentSummary(a, nil)
	if a.TriggerType == "email_received" && len(out.Triggers) == 1 && s.deps.MailInbound != nil {
		// The addresses need the alias and the account's primary domain:
		// two reads, so only the single-agent answer carries them.
		te, err := s.deps.MailInbound.TriggerEmailOf(ctx, a.AccountID, a.ID)
		if err != nil {
			return nil, fault.Name(err, "Agent") // deleted meanwhile: a 404
		}
		out.Triggers[0].EmailAddresses = te.Addresses
		if te.Alias != "" {
			out.Triggers[0].EmailAlias = &te.Alias
		}
	}
	return &agentOutput{Body: out}, nil
}

type updateAgentInput struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Body    UpdateAgentRequest
}

func (s *Server) updateAgent(ctx context.Context, in *updateAgentInput) (*agentOutput, error) {
	p := principal(ctx)
	b := in.Body
	u := agents.UpdateInput{AccountID: p.AccountID, AgentID: in.AgentID, UserID: p.UserID,
		Name: b.Name, Description: b.Description, EvaluationMode: b.EvaluationMode,
		DefaultEvaluationTier: b.DefaultEvaluationTier, SetDefaultEvaluationTier: b.SetDefaultEvaluationTier,
		MaxRetries: b.MaxRetries, RetryOnFailure: b.RetryOnFailure, SetSamplingConfig: b.SetSamplingConfig,
		UpgradeStrategy: b.PromptModelAutoUpgradeStrategy, RollbackEnabled: b.PromptModelAutoRollbackEnabled,
		RollbackTriggers: b.PromptModelAutoRollbackTriggers, SetRollbackTriggers: b.SetPromptModelAutoRollbackTriggers,
		Definition: b.AgentDefinition, EntityRemap: b.EntityRemap}
	if b.SamplingConfig != nil {
		raw, err := json.Marshal(b.SamplingConfig)
		if err != nil {
			return nil, err
		}
		u.SamplingConfig = raw
	}
	res, err := s.agents().Update(ctx, u)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentOutput{Body: agentSummary(res.Agent, res.ImportWarnings)}, nil
}

func (s *Server) deleteAgent(ctx context.Context, in *agentIDPath) (*struct{}, error) {
	if err := s.agents().Delete(ctx, principal(ctx).AccountID, in.AgentID); err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return nil, nil
}

type previewImportInput struct{ Body AgentImportPreviewRequest }

type previewImportOutput struct{ Body def.Preview }

func (s *Server) previewImportAgent(ctx context.Context, in *previewImportInput) (*previewImportOutput, error) {
	p, err := s.agents().PreviewImport(ctx, principal(ctx).AccountID, in.Body.AgentDefinition)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &previewImportOutput{Body: p}, nil
}

// withStatus sets an operation's success status.
func withStatus(o huma.Operation, status int) huma.Operation {
	o.DefaultStatus = status
	return o
}
