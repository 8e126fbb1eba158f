package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/solutions"
	"github.com/danielgtaylor/huma/v2"
)

// The planning assistants (solution, knowledge-base, source; standalone or
// inside a solution), accept and decline.

// AiAssistantGenerateRequest is the body of every planning assistant.
type AiAssistantGenerateRequest struct {
	UserInput    string  `json:"user_input" minLength:"1" maxLength:"8000" doc:"User input describing what to do"`
	HistorySince *string `json:"history_since,omitempty" nullable:"true" doc:"Optional ISO 8601 timestamp: only turns created at or after it are context."`
}

// ProposedAction is one action of a plan.
type ProposedAction struct {
	ActionType    string         `json:"action_type"`
	Description   string         `json:"description"`
	IsDestructive bool           `json:"is_destructive"`
	Params        map[string]any `json:"params"`
	Preview       map[string]any `json:"preview" nullable:"true"`
}

// AiAssistantGenerateResponse is a plan.
type AiAssistantGenerateResponse struct {
	ConversationID             string              `json:"conversation_id"`
	Note                       string              `json:"note"`
	ProposedActions            []ProposedAction    `json:"proposed_actions"`
	RequiresDeleteConfirmation bool                `json:"requires_delete_confirmation"`
	Success                    bool                `json:"success"`
	ExamplePrompts             []map[string]string `json:"example_prompts"`
}

type generateInput struct {
	SolutionID string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	Accept     string `header:"Accept" doc:"text/event-stream streams the plan as Server-Sent Events."`
	Body       AiAssistantGenerateRequest
}

type standaloneGenerateInput struct {
	Accept string `header:"Accept" doc:"text/event-stream streams the plan as Server-Sent Events."`
	Body   AiAssistantGenerateRequest
}

// planner returns the handler of one assistant kind inside a solution.
func (s *Server) planner(kind string) func(context.Context, *generateInput) (*huma.StreamResponse, error) {
	return func(ctx context.Context, in *generateInput) (*huma.StreamResponse, error) {
		return s.plan(ctx, kind, in.SolutionID, in.Accept, in.Body)
	}
}

// standalonePlanner returns the handler of a standalone assistant.
func (s *Server) standalonePlanner(kind string) func(context.Context, *standaloneGenerateInput) (*huma.StreamResponse, error) {
	return func(ctx context.Context, in *standaloneGenerateInput) (*huma.StreamResponse, error) {
		return s.plan(ctx, kind, "", in.Accept, in.Body)
	}
}

func (s *Server) plan(ctx context.Context, kind, solutionID, accept string, body AiAssistantGenerateRequest) (*huma.StreamResponse, error) {
	p := principal(ctx)
	req := solutions.Request{AccountID: p.AccountID, UserID: p.UserID, SolutionID: solutionID, Kind: kind, Input: body.UserInput}
	if body.HistorySince != nil && *body.HistorySince != "" {
		t, err := time.Parse(time.RFC3339, *body.HistorySince)
		if err != nil {
			return nil, Invalid([]any{"body", "history_since"}, "history_since must be an ISO 8601 timestamp", "datetime_parsing")
		}
		req.HistorySince = &t
	}
	if strings.TrimSpace(body.UserInput) == "" {
		return nil, Invalid([]any{"body", "user_input"}, "user_input must not be blank", "value_error")
	}
	if solutionID != "" {
		if _, err := s.deps.Solutions.Get(ctx, p.AccountID, solutionID); err != nil {
			return nil, fault.Name(err, "Solution")
		}
	}
	ex := s.executor(p)
	if strings.Contains(accept, "text/event-stream") {
		release, err := s.streams.acquire(p.Credential, p.AccountID)
		if err != nil {
			return nil, err
		}
		return &huma.StreamResponse{Body: func(hctx huma.Context) {
			defer release()
			hctx.SetHeader("Content-Type", "text/event-stream")
			hctx.SetHeader("Cache-Control", "no-cache")
			hctx.SetHeader("X-Accel-Buffering", "no")
			hctx.SetStatus(http.StatusOK)
			w := hctx.BodyWriter()
			write := func(event string, v any) {
				b, _ := json.Marshal(v)
				fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
			}
			write("status", map[string]string{"status": "planning", "assistant": kind})
			prop, err := s.deps.Solutions.Plan(hctx.Context(), ex, req)
			if err != nil {
				e := respond(hctx.Context(), fault.Name(err, "Solution"))
				write("error", map[string]string{"detail": e.Error()})
				return
			}
			resp := generateResponse(kind, prop)
			for i, a := range resp.ProposedActions {
				write("action", map[string]any{"index": i + 1, "action": a})
			}
			write("note", map[string]string{"note": resp.Note})
			write("done", resp)
		}}, nil
	}
	prop, err := s.deps.Solutions.Plan(ctx, ex, req)
	if err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return jsonStream(http.StatusOK, generateResponse(kind, prop)), nil
}

// jsonStream answers v as JSON from a handler whose other answer streams.
func jsonStream(status int, v any) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		b, _ := json.Marshal(v)
		hctx.SetHeader("Content-Type", "application/json")
		hctx.SetStatus(status)
		_, _ = hctx.BodyWriter().Write(b)
	}}
}

func generateResponse(kind string, p solutions.Proposal) AiAssistantGenerateResponse {
	r := AiAssistantGenerateResponse{ConversationID: p.ConversationID, Note: p.Note, Success: p.Success,
		ProposedActions: make([]ProposedAction, 0, len(p.Actions)), ExamplePrompts: solutions.ExamplePrompts[kind]}
	for _, a := range p.Actions {
		r.ProposedActions = append(r.ProposedActions, ProposedAction{ActionType: a.Type, Description: a.Description,
			IsDestructive: a.IsDestructive, Params: a.Params, Preview: a.Preview})
		if a.IsDestructive {
			r.RequiresDeleteConfirmation = true
		}
	}
	return r
}

// AiAssistantAcceptRequest accepts a plan.
type AiAssistantAcceptRequest struct {
	ConfirmDeletions    bool    `json:"confirm_deletions,omitempty" doc:"Must be true when the plan contains destructive actions"`
	SolutionName        *string `json:"solution_name,omitempty" nullable:"true" maxLength:"255" doc:"Standalone plans: make a solution of this name and link what was created."`
	SolutionDescription *string `json:"solution_description,omitempty" nullable:"true" maxLength:"2000" doc:"Standalone plans: the new solution's description."`
}

// ExecutedAction is one action's result.
type ExecutedAction struct {
	ActionType         string  `json:"action_type"`
	Description        string  `json:"description"`
	Success            bool    `json:"success"`
	Error              *string `json:"error" nullable:"true"`
	ResourceID         *string `json:"resource_id" nullable:"true"`
	ResourceType       *string `json:"resource_type" nullable:"true"`
	NeedsClarification bool    `json:"needs_clarification"`
}

// AiAssistantAcceptResponse is what accepting did.
type AiAssistantAcceptResponse struct {
	ConversationID  string           `json:"conversation_id"`
	SolutionID      *string          `json:"solution_id" nullable:"true"`
	ExecutedActions []ExecutedAction `json:"executed_actions"`
	Success         bool             `json:"success"`
	Error           *string          `json:"error" nullable:"true"`
}

type acceptInput struct {
	SolutionID     string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The plan's conversation id."`
	Body           AiAssistantAcceptRequest
}

type standaloneAcceptInput struct {
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The plan's conversation id."`
	Body           AiAssistantAcceptRequest
}

type planAcceptOutput struct{ Body AiAssistantAcceptResponse }

func (s *Server) acceptPlan(ctx context.Context, in *acceptInput) (*planAcceptOutput, error) {
	if _, err := s.deps.Solutions.Get(ctx, principal(ctx).AccountID, in.SolutionID); err != nil {
		return nil, fault.Name(err, "Solution")
	}
	return s.accept(ctx, in.SolutionID, in.ConversationID, in.Body)
}

func (s *Server) acceptStandalonePlan(ctx context.Context, in *standaloneAcceptInput) (*planAcceptOutput, error) {
	return s.accept(ctx, "", in.ConversationID, in.Body)
}

func (s *Server) accept(ctx context.Context, solutionID, conversationID string, b AiAssistantAcceptRequest) (*planAcceptOutput, error) {
	p := principal(ctx)
	req := solutions.AcceptRequest{AccountID: p.AccountID, UserID: p.UserID, SolutionID: solutionID, ConversationID: conversationID,
		ConfirmDeletions: b.ConfirmDeletions}
	if solutionID == "" {
		req.SolutionName, req.SolutionDescription = b.SolutionName, b.SolutionDescription
	}
	res, err := s.deps.Solutions.Accept(ctx, s.executor(p), req)
	if err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	out := AiAssistantAcceptResponse{ConversationID: res.ConversationID, SolutionID: res.SolutionID, Success: res.Success, Error: res.Error,
		ExecutedActions: make([]ExecutedAction, 0, len(res.Executed))}
	for _, e := range res.Executed {
		out.ExecutedActions = append(out.ExecutedActions, ExecutedAction{ActionType: e.Type, Description: e.Description, Success: e.Success,
			Error: e.Error, ResourceID: e.ResourceID, ResourceType: e.ResourceType, NeedsClarification: e.NeedsClarification})
	}
	return &planAcceptOutput{Body: out}, nil
}

type declineInput struct {
	SolutionID     string `path:"solution_id" format:"uuid" doc:"The solution's id."`
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The plan's conversation id."`
}

type standaloneDeclineInput struct {
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The plan's conversation id."`
}

func (s *Server) declinePlan(ctx context.Context, in *declineInput) (*struct{}, error) {
	if _, err := s.deps.Solutions.Get(ctx, principal(ctx).AccountID, in.SolutionID); err != nil {
		return nil, fault.Name(err, "Solution")
	}
	if err := s.deps.Solutions.Decline(ctx, principal(ctx).AccountID, in.SolutionID, in.ConversationID); err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return nil, nil
}

func (s *Server) declineStandalonePlan(ctx context.Context, in *standaloneDeclineInput) (*struct{}, error) {
	if err := s.deps.Solutions.Decline(ctx, principal(ctx).AccountID, "", in.ConversationID); err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return nil, nil
}

// inProcessKey carries the principal of a request the server sends itself
// (a plan's actions): authenticate takes it as already authenticated.
// Being unexported, no request from outside can carry it.
type inProcessKey struct{}

// apiExecutor runs a plan's actions as the caller's own API requests, so
// they obey exactly the API's rules and the caller's permissions.
type apiExecutor struct {
	s *Server
	p auth.Principal
}

func (s *Server) executor(p auth.Principal) solutions.Executor { return apiExecutor{s: s, p: p} }

// Do sends one request through the whole handler chain.
func (e apiExecutor) Do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, inProcessKey{}, e.p), method, path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "in-process"
	w := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	e.s.handler.ServeHTTP(w, req)
	return w.status, w.body.Bytes(), nil
}

// ValidateBody checks a body against the operation's request schema.
func (e apiExecutor) ValidateBody(method, path string, body any) []string {
	oapi := e.s.api.OpenAPI()
	var op *huma.Operation
	for p, item := range oapi.Paths {
		if !matchTemplate(path, p) {
			continue
		}
		switch method {
		case http.MethodPost:
			op = item.Post
		case http.MethodPut:
			op = item.Put
		case http.MethodPatch:
			op = item.Patch
		}
		if op != nil {
			break
		}
	}
	if op == nil || op.RequestBody == nil || op.RequestBody.Content["application/json"] == nil {
		return nil
	}
	// Validate the JSON form, as a client's body would be.
	b, err := json.Marshal(body)
	if err != nil {
		return []string{err.Error()}
	}
	var v any
	_ = json.Unmarshal(b, &v)
	res := &huma.ValidateResult{}
	huma.Validate(oapi.Components.Schemas, op.RequestBody.Content["application/json"].Schema, huma.NewPathBuffer([]byte("body"), 0),
		huma.ModeWriteToServer, v, res)
	out := make([]string, 0, len(res.Errors))
	for _, err := range res.Errors {
		out = append(out, err.Error())
	}
	return out
}

// matchTemplate reports whether path ("/sources/{id}") has the shape of
// the OpenAPI path template t ("/sources/{source_connection_id}").
func matchTemplate(path, t string) bool {
	ps, ts := strings.Split(path, "/"), strings.Split(t, "/")
	if len(ps) != len(ts) {
		return false
	}
	for i := range ps {
		isParam := strings.HasPrefix(ts[i], "{")
		if isParam != strings.HasPrefix(ps[i], "{") || (!isParam && ps[i] != ts[i]) {
			return false
		}
	}
	return true
}

// bufferedResponse collects an in-process response.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedResponse) Header() http.Header         { return w.header }
func (w *bufferedResponse) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *bufferedResponse) WriteHeader(status int)      { w.status = status }
