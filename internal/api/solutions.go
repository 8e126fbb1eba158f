package api

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/solutions"
)

// Solutions: CRUD, links to agents, knowledge bases and sources, and the
// conversation history of their assistants.

// SolutionAgent is an agent of a solution.
type SolutionAgent struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	KnowledgeBaseIDs []string `json:"knowledge_base_ids"`
}

// SolutionKnowledgeBase is a knowledge base of a solution.
type SolutionKnowledgeBase struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	SourceConnectionIDs []string `json:"source_connection_ids"`
}

// SolutionSourceConnection is a source of a solution.
type SolutionSourceConnection struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SolutionResponse is a solution with its links.
type SolutionResponse struct {
	ID                string                     `json:"id"`
	Name              string                     `json:"name"`
	Description       string                     `json:"description"`
	Agents            []SolutionAgent            `json:"agents"`
	KnowledgeBases    []SolutionKnowledgeBase    `json:"knowledge_bases"`
	SourceConnections []SolutionSourceConnection `json:"source_connections"`
	CreatedAt         string                     `json:"created_at"`
	UpdatedAt         string                     `json:"updated_at"`
}

func solutionResponse(s solutions.Solution) SolutionResponse {
	r := SolutionResponse{ID: s.ID, Name: s.Name, Description: s.Description, Agents: []SolutionAgent{},
		KnowledgeBases: []SolutionKnowledgeBase{}, SourceConnections: []SolutionSourceConnection{},
		CreatedAt: modelsTimestamp(s.CreatedAt), UpdatedAt: modelsTimestamp(s.UpdatedAt)}
	for _, a := range s.Agents {
		r.Agents = append(r.Agents, SolutionAgent{ID: a.ID, Name: a.Name, KnowledgeBaseIDs: a.KnowledgeBaseIDs})
	}
	for _, k := range s.KnowledgeBases {
		r.KnowledgeBases = append(r.KnowledgeBases, SolutionKnowledgeBase{ID: k.ID, Name: k.Name, SourceConnectionIDs: k.SourceIDs})
	}
	for _, src := range s.Sources {
		r.SourceConnections = append(r.SourceConnections, SolutionSourceConnection{ID: src.ID, Name: src.Name})
	}
	return r
}

// SolutionSummary is a solution in a list.
type SolutionSummary struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Description           string `json:"description"`
	AgentCount            int    `json:"agent_count"`
	KnowledgeBaseCount    int    `json:"knowledge_base_count"`
	SourceConnectionCount int    `json:"source_connection_count"`
	MemoryBankCount       int    `json:"memory_bank_count" doc:"Memory banks are not linked to solutions yet: always 0."`
	CreatedAt             string `json:"created_at"`
	UpdatedAt             string `json:"updated_at"`
}

type listSolutionsInput struct {
	Page   int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number"`
	Limit  int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page"`
	Sort   string `query:"sort" default:"created_at" enum:"created_at,updated_at,name" doc:"Sort field"`
	Order  string `query:"order" default:"desc" enum:"asc,desc" doc:"Sort order"`
	Search string `query:"search" maxLength:"200" doc:"Filter by solution name (case-insensitive partial match)"`
}

func (s *Server) listSolutions(ctx context.Context, in *listSolutionsInput) (*anyOutput, error) {
	list, total, err := s.deps.Solutions.List(ctx, principal(ctx).AccountID, in.Search, in.Sort, in.Order != "asc", in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]SolutionSummary, 0, len(list))
	for _, x := range list {
		items = append(items, SolutionSummary{ID: x.ID, Name: x.Name, Description: x.Description, AgentCount: x.Agents,
			KnowledgeBaseCount: x.KnowledgeBases, SourceConnectionCount: x.Sources, CreatedAt: modelsTimestamp(x.CreatedAt),
			UpdatedAt: modelsTimestamp(x.UpdatedAt)})
	}
	// The contract's list is the canonical envelope at every version.
	return &anyOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), func(items []SolutionSummary, p Pagination) any {
		return Envelope[SolutionSummary]{Data: items, Pagination: p}
	})}, nil
}

// CreateSolutionRequest is POST /solutions.
type CreateSolutionRequest struct {
	Name        string `json:"name" minLength:"1" maxLength:"255" doc:"Name of the solution"`
	Description string `json:"description,omitempty" maxLength:"2000" doc:"Description of the solution"`
}

type createSolutionInput struct{ Body CreateSolutionRequest }
type solutionOutput struct{ Body SolutionResponse }

func (s *Server) createSolution(ctx context.Context, in *createSolutionInput) (*solutionOutput, error) {
	sol, err := s.deps.Solutions.Create(ctx, principal(ctx).AccountID, in.Body.Name, in.Body.Description)
	if err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return &solutionOutput{Body: solutionResponse(sol)}, nil
}

type solutionIDInput struct {
	SolutionID string `path:"solution_id" format:"uuid" doc:"The solution's id."`
}

func (s *Server) getSolution(ctx context.Context, in *solutionIDInput) (*solutionOutput, error) {
	sol, err := s.deps.Solutions.Get(ctx, principal(ctx).AccountID, in.SolutionID)
	if err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return &solutionOutput{Body: solutionResponse(sol)}, nil
}

// UpdateSolutionRequest is PATCH /solutions/{id}; omitted fields stay.
type UpdateSolutionRequest struct {
	Name        *string `json:"name,omitempty" nullable:"true" minLength:"1" maxLength:"255"`
	Description *string `json:"description,omitempty" nullable:"true" maxLength:"2000"`
}

type updateSolutionInput struct {
	SolutionID string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	Body       UpdateSolutionRequest
}

func (s *Server) updateSolution(ctx context.Context, in *updateSolutionInput) (*solutionOutput, error) {
	sol, err := s.deps.Solutions.Update(ctx, principal(ctx).AccountID, in.SolutionID, in.Body.Name, in.Body.Description)
	if err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return &solutionOutput{Body: solutionResponse(sol)}, nil
}

func (s *Server) deleteSolution(ctx context.Context, in *solutionIDInput) (*struct{}, error) {
	if err := s.deps.Solutions.Delete(ctx, principal(ctx).AccountID, in.SolutionID); err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return nil, nil
}

// LinkResourcesRequest is the body of the link and unlink operations.
type LinkResourcesRequest struct {
	IDs []string `json:"ids" maxItems:"100" doc:"Resource IDs"`
}

type linkInput struct {
	SolutionID string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	Body       LinkResourcesRequest
}

// linker returns the handler linking (or unlinking) one kind.
func (s *Server) linker(kind string, link bool) func(context.Context, *linkInput) (*solutionOutput, error) {
	return func(ctx context.Context, in *linkInput) (*solutionOutput, error) {
		for i, id := range in.Body.IDs {
			if !isUUID(id) {
				return nil, Invalid([]any{"body", "ids", i}, "Input should be a valid UUID", "uuid_parsing")
			}
		}
		f := s.deps.Solutions.Unlink
		if link {
			f = s.deps.Solutions.Link
		}
		sol, err := f(ctx, principal(ctx).AccountID, in.SolutionID, kind, in.Body.IDs)
		if err != nil {
			return nil, fault.Name(err, "Solution")
		}
		return &solutionOutput{Body: solutionResponse(sol)}, nil
	}
}

// SolutionConversation is a turn of a solution's history.
type SolutionConversation struct {
	ID           string         `json:"id"`
	UserInput    string         `json:"user_input"`
	AIResponse   *string        `json:"ai_response" nullable:"true"`
	ActionsTaken map[string]any `json:"actions_taken" nullable:"true"`
	Accepted     *bool          `json:"accepted" nullable:"true"`
	CreatedAt    string         `json:"created_at"`
}

func conversationResponse(c solutions.AssistantConversation) SolutionConversation {
	r := SolutionConversation{ID: c.ID, UserInput: c.UserInput, AIResponse: c.AIResponse, Accepted: c.Accepted, CreatedAt: modelsTimestamp(c.CreatedAt)}
	raw := c.Actions
	if c.Results != nil {
		raw = c.Results
	}
	if raw != nil {
		_ = jsonUnmarshal(raw, &r.ActionsTaken)
	}
	return r
}

type conversationsOutput struct{ Body any }

func (s *Server) listSolutionConversations(ctx context.Context, in *solutionIDInput) (*conversationsOutput, error) {
	cs, err := s.deps.Solutions.Conversations(ctx, principal(ctx).AccountID, in.SolutionID)
	if err != nil {
		return nil, fault.Name(err, "Solution")
	}
	out := make([]SolutionConversation, 0, len(cs))
	for _, c := range cs {
		out = append(out, conversationResponse(c))
	}
	// Every turn on one page: the envelope from 2026-07-27, a bare array
	// before.
	return &conversationsOutput{Body: List(ctx, out, PageOf(1, max(len(out), 1), len(out)),
		func(items []SolutionConversation, _ Pagination) any { return items })}, nil
}

// AddConversationTurnRequest records a turn by hand.
type AddConversationTurnRequest struct {
	UserInput    string         `json:"user_input" minLength:"1" maxLength:"8000" doc:"User input text"`
	AIResponse   *string        `json:"ai_response,omitempty" nullable:"true" maxLength:"32000" doc:"AI response text"`
	ActionsTaken map[string]any `json:"actions_taken,omitempty" nullable:"true" doc:"Actions taken by the AI"`
}

type addTurnInput struct {
	SolutionID string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	Body       AddConversationTurnRequest
}

type conversationOutput struct{ Body SolutionConversation }

func (s *Server) addSolutionConversation(ctx context.Context, in *addTurnInput) (*conversationOutput, error) {
	p := principal(ctx)
	c, err := s.deps.Solutions.AddTurn(ctx, p.AccountID, p.UserID, in.SolutionID, in.Body.UserInput, in.Body.AIResponse, in.Body.ActionsTaken)
	if err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return &conversationOutput{Body: conversationResponse(c)}, nil
}

// MarkConversationTurnRequest records a decision.
type MarkConversationTurnRequest struct {
	Accepted bool `json:"accepted" doc:"Whether the suggestion was accepted"`
}

type markTurnInput struct {
	SolutionID     string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The turn's id."`
	Body           MarkConversationTurnRequest
}

func (s *Server) markSolutionConversation(ctx context.Context, in *markTurnInput) (*struct{}, error) {
	if err := s.deps.Solutions.MarkTurn(ctx, principal(ctx).AccountID, in.SolutionID, in.ConversationID, in.Body.Accepted); err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return nil, nil
}

var reUUIDValue = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return reUUIDValue.MatchString(s) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
