package solutions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// Assistant kinds: what a planning assistant may propose.
const (
	KindSolution      = "solution"       // sources, knowledge bases and agents
	KindKnowledgeBase = "knowledge_base" // knowledge bases, and the sources they need
	KindSource        = "source"         // sources only
	kindManual        = "manual"         // a turn recorded through the API
)

// allowedResources says which resource types each assistant may act on.
var allowedResources = map[string][]string{
	KindSolution:      {ResourceSource, ResourceKnowledgeBase, ResourceAgent},
	KindKnowledgeBase: {ResourceSource, ResourceKnowledgeBase},
	KindSource:        {ResourceSource},
}

// Request is one call of a planning assistant.
type Request struct {
	AccountID, UserID string
	SolutionID        string // "" for the standalone assistants
	Kind              string
	Input             string
	HistorySince      *time.Time
}

// Proposal is a stored plan.
type Proposal struct {
	ConversationID string
	Note           string
	Actions        []Action
	// Success is false when no valid plan came out (the note says why).
	Success bool
	// Problems are the validator's findings on the last plan tried.
	Problems []string
}

// ExamplePrompts show what each assistant understands.
var ExamplePrompts = map[string][]map[string]string{
	KindSolution: {
		{"title": "Weekly feed digest", "prompt": "Watch https://example.com/feed.xml and e-mail me a weekly summary"},
		{"title": "Answer from documents", "prompt": "Answer customer questions from our product manuals"},
		{"title": "Change alerts", "prompt": "Tell me when https://example.com/pricing changes"},
		{"title": "Extract fields", "prompt": "Extract the people, dates and organisations from contracts I upload"},
	},
	KindKnowledgeBase: {
		{"title": "Knowledge base over a feed", "prompt": "Build a knowledge base from the feed https://example.com/rss"},
		{"title": "Document library", "prompt": "A knowledge base for our HR policies that I will upload"},
	},
	KindSource: {
		{"title": "RSS feed", "prompt": "Add the RSS feed https://example.com/feed.xml, checked hourly"},
		{"title": "Website", "prompt": "Index the site https://docs.example.com daily"},
		{"title": "Uploads", "prompt": "A source for the PDFs I will upload"},
	},
}

// Plan turns a goal into a validated plan and stores it as a conversation
// turn. A plan that cannot be made valid is stored too, without actions,
// its note saying why (success false).
func (s *Service) Plan(ctx context.Context, ex Executor, r Request) (Proposal, error) {
	if err := checkText("user_input", strings.TrimSpace(r.Input), 1, MaxInputLength); err != nil {
		return Proposal{}, err
	}
	var solID *string
	if r.SolutionID != "" {
		if _, err := s.repo.byID(ctx, r.AccountID, r.SolutionID); err != nil {
			return Proposal{}, err
		}
		solID = &r.SolutionID
	}
	note, actions, problems, err := s.plan(ctx, ex, r)
	if err != nil {
		return Proposal{}, err
	}
	ok := len(problems) == 0 && len(actions) > 0
	if len(problems) > 0 {
		note += " The plan did not pass validation, so nothing is proposed: " + strings.Join(problems, "; ")
		actions = nil
	}
	if actions == nil {
		actions = []Action{}
	}
	b, err := json.Marshal(map[string]any{"proposed_actions": actions})
	if err != nil {
		return Proposal{}, err
	}
	c, err := s.repo.createConversation(ctx, AssistantConversation{AccountID: r.AccountID, SolutionID: solID, UserID: r.UserID,
		Kind: r.Kind, UserInput: r.Input, AIResponse: &note, Actions: b})
	if err != nil {
		return Proposal{}, err
	}
	return Proposal{ConversationID: c.ID, Note: note, Actions: actions, Success: ok, Problems: problems}, nil
}

// plan asks the model when one is configured, else the built-in planner,
// and validates the result.
func (s *Service) plan(ctx context.Context, ex Executor, r Request) (string, []Action, []string, error) {
	if s.Model != nil && s.AssistantModel != "" {
		return s.modelPlan(ctx, ex, r)
	}
	me := ""
	if r.UserID != "" {
		if u, err := directory.GetUser(ctx, s.DB, r.UserID); err == nil {
			me = u.Email
		}
	}
	note, actions := Offline(r.Kind, r.Input, me, s.lookup(ctx, r.AccountID))
	problems, err := s.checkPlan(ctx, ex, r.AccountID, r.Kind, actions)
	return note, actions, problems, err
}

// checkPlan validates a plan and that it stays within its assistant's kinds.
func (s *Service) checkPlan(ctx context.Context, ex Executor, accountID, kind string, actions []Action) ([]string, error) {
	var out []string
	for i, a := range actions {
		if spec, ok := actionSpecs[a.Type]; ok && !slices.Contains(allowedResources[kind], spec.resource) {
			out = append(out, fmt.Sprintf("action %d: the %s assistant does not act on %ss", i+1, kind, spec.resource))
		}
	}
	ps, err := s.ValidatePlan(ctx, accountID, ex, actions)
	return append(out, ps...), err
}

func actionsOf(c AssistantConversation) []Action {
	var v struct {
		Actions []Action `json:"proposed_actions"`
	}
	_ = json.Unmarshal(c.Actions, &v)
	return v.Actions
}

// AcceptRequest is an accept call.
type AcceptRequest struct {
	AccountID, UserID   string
	SolutionID          string // "" for a standalone plan
	ConversationID      string
	ConfirmDeletions    bool
	SolutionName        *string // standalone: make a solution and link what was created
	SolutionDescription *string
}

// AcceptResult is what accepting did.
type AcceptResult struct {
	ConversationID string
	SolutionID     *string
	Executed       []Executed
	Success        bool
	Error          *string
}

// Accept executes a pending plan's actions in order through ex, resolving
// references between them, links what was created to the solution (the
// plan's, or one made from SolutionName for a standalone plan), and reports
// each action's result. A plan with deletions needs ConfirmDeletions.
func (s *Service) Accept(ctx context.Context, ex Executor, r AcceptRequest) (AcceptResult, error) {
	c, err := s.repo.conversation(ctx, r.AccountID, r.SolutionID, r.ConversationID)
	if err != nil {
		return AcceptResult{}, err
	}
	if c.Kind == kindManual {
		return AcceptResult{}, store.ErrNotFound
	}
	if c.Accepted != nil {
		return AcceptResult{}, ErrDecided
	}
	actions := actionsOf(c)
	if hasDeletions(actions) && !r.ConfirmDeletions {
		return AcceptResult{}, invalid("this plan deletes resources: send confirm_deletions: true to accept it", "body", "confirm_deletions")
	}
	if r.SolutionName != nil {
		if err := checkText("solution_name", strings.TrimSpace(*r.SolutionName), 1, MaxNameLength); err != nil {
			return AcceptResult{}, err
		}
	}
	if r.SolutionDescription != nil {
		if err := checkText("solution_description", *r.SolutionDescription, 0, MaxDescriptionLength); err != nil {
			return AcceptResult{}, err
		}
	}
	// Claim the turn first, so two accepts never execute it twice.
	if err := s.repo.decideConversation(ctx, r.AccountID, c.ID, true, true); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return AcceptResult{}, ErrDecided
		}
		return AcceptResult{}, err
	}
	ctx = context.WithoutCancel(ctx) // a plan half-executed because the client left helps nobody
	res := AcceptResult{ConversationID: c.ID, Success: true, Executed: make([]Executed, 0, len(actions))}
	created := map[int]string{}
	failed := map[int]bool{}
	for i, a := range actions {
		e := s.execute(ctx, ex, i, a, created, failed)
		if !e.Success {
			res.Success = false
			if res.Error == nil {
				msg := fmt.Sprintf("action %d (%s) failed: %s", i+1, a.Type, deref(e.Error))
				res.Error = &msg
			}
		}
		res.Executed = append(res.Executed, e)
	}
	// Link what was created to the solution.
	solutionID := r.SolutionID
	if solutionID == "" && r.SolutionName != nil {
		desc := ""
		if r.SolutionDescription != nil {
			desc = *r.SolutionDescription
		}
		sol, err := s.repo.create(ctx, r.AccountID, strings.TrimSpace(*r.SolutionName), desc)
		if err != nil {
			return res, err
		}
		solutionID = sol.ID
		res.SolutionID = &solutionID
	}
	if solutionID != "" {
		for i, a := range actions {
			id, ok := created[i+1]
			if !ok {
				continue
			}
			if err := s.repo.link(ctx, r.AccountID, solutionID, resourceKind[actionSpecs[a.Type].resource], []string{id}); err != nil && !errors.Is(err, errLinkTarget) {
				return res, err
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"proposed_actions": actions, "executed_actions": res.Executed, "solution_id": res.SolutionID})
	if err := s.repo.setConversationResults(ctx, r.AccountID, c.ID, b); err != nil {
		return res, err
	}
	return res, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// execute runs one action.
func (s *Service) execute(ctx context.Context, ex Executor, i int, a Action, created map[int]string, failed map[int]bool) Executed {
	spec := actionSpecs[a.Type]
	typ := spec.resource
	e := Executed{Type: a.Type, Description: a.Description, ResourceType: &typ}
	fail := func(msg string) Executed {
		e.Error, e.Success = &msg, false
		failed[i+1] = true
		return e
	}
	var refs []int
	refsOf(a.Params, &refs)
	for _, n := range refs {
		if _, ok := created[n]; !ok {
			return fail(fmt.Sprintf("depends on action %d, which did not create its resource", n))
		}
	}
	params, _ := substitute(a.Params, func(n int) (string, bool) { id, ok := created[n]; return id, ok }).(map[string]any)
	path := spec.collection
	if spec.verb != "create" {
		id, _ := params["id"].(string)
		if id == "" {
			return fail("params.id is required")
		}
		path += "/" + id
		e.ResourceID = &id
	}
	var body any
	if spec.verb != "delete" {
		body = params["body"]
	}
	status, resp, err := ex.Do(ctx, spec.method, path, body)
	if err != nil {
		return fail(err.Error())
	}
	if status >= 300 {
		return fail(fmt.Sprintf("%d %s", status, errorText(resp)))
	}
	if spec.verb == "create" {
		var v struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(resp, &v)
		if v.ID != "" {
			created[i+1] = v.ID
			e.ResourceID = &v.ID
		}
	}
	e.Success = true
	return e
}

// errorText reads the detail of an API error body.
func errorText(b []byte) string {
	var v struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &v) == nil && len(v.Detail) > 0 {
		var s string
		if json.Unmarshal(v.Detail, &s) == nil {
			return s
		}
		return string(v.Detail)
	}
	if len(b) > 500 {
		b = b[:500]
	}
	return strings.TrimSpace(string(b))
}

// Decline marks a pending plan declined; nothing changes.
func (s *Service) Decline(ctx context.Context, accountID, solutionID, conversationID string) error {
	c, err := s.repo.conversation(ctx, accountID, solutionID, conversationID)
	if err != nil {
		return err
	}
	if c.Kind == kindManual {
		return store.ErrNotFound
	}
	if err := s.repo.decideConversation(ctx, accountID, conversationID, false, true); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return ErrDecided
		}
		return err
	}
	return nil
}

// Conversations lists a solution's turns, oldest first.
func (s *Service) Conversations(ctx context.Context, accountID, solutionID string) ([]AssistantConversation, error) {
	if _, err := s.repo.byID(ctx, accountID, solutionID); err != nil {
		return nil, err
	}
	return s.repo.conversations(ctx, accountID, solutionID, nil, MaxConversations)
}

// AddTurn records a turn by hand.
func (s *Service) AddTurn(ctx context.Context, accountID, userID, solutionID, input string, response *string, actions map[string]any) (AssistantConversation, error) {
	if err := checkText("user_input", input, 1, MaxInputLength); err != nil {
		return AssistantConversation{}, err
	}
	if response != nil {
		if err := checkText("ai_response", *response, 0, 4*MaxInputLength); err != nil {
			return AssistantConversation{}, err
		}
	}
	if _, err := s.repo.byID(ctx, accountID, solutionID); err != nil {
		return AssistantConversation{}, err
	}
	var raw json.RawMessage
	if actions != nil {
		b, err := json.Marshal(actions)
		if err != nil {
			return AssistantConversation{}, invalid("actions_taken must be a JSON object", "body", "actions_taken")
		}
		if len(b) > 256<<10 {
			return AssistantConversation{}, invalid("actions_taken is larger than 256 KiB", "body", "actions_taken")
		}
		raw = b
	}
	return s.repo.createConversation(ctx, AssistantConversation{AccountID: accountID, SolutionID: &solutionID, UserID: userID,
		Kind: kindManual, UserInput: input, AIResponse: response, Actions: raw})
}

// MarkTurn records whether a turn was accepted, without executing anything.
func (s *Service) MarkTurn(ctx context.Context, accountID, solutionID, conversationID string, accepted bool) error {
	if _, err := s.repo.conversation(ctx, accountID, solutionID, conversationID); err != nil {
		return err
	}
	return s.repo.decideConversation(ctx, accountID, conversationID, accepted, false)
}
