package solutions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/search"
	"github.com/agentry/agentry/internal/store"
)

// Service is the solutions area.
type Service struct {
	DB     *store.DB
	repo   repo
	Agents *agents.Service
	// Model and AssistantModel, when both set, make the planning and agent
	// assistants ask that catalog model (metered to the account); otherwise
	// the built-in planner answers, deterministically and for free.
	Model          llm.Provider
	AssistantModel string
}

// New builds the service; model and assistantModel as in Service.
func New(db *store.DB, agents *agents.Service, model llm.Provider, assistantModel string) *Service {
	return &Service{DB: db, repo: repo{db}, Agents: agents, Model: model, AssistantModel: assistantModel}
}

// InvalidError is a refused field: a 422 at Loc.
type InvalidError struct {
	Loc  []any
	Msg  string
	Type string
}

func (e *InvalidError) Error() string { return e.Msg }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidAt(e.Loc, e.Msg, e.Type).Because(e)
	}
	return ok
}

func invalid(msg string, loc ...any) error {
	return &InvalidError{Loc: loc, Msg: msg, Type: "value_error"}
}

// Errors the API tells apart.
var (
	ErrDecided error = &fault.Conflict{Err: errors.New("this plan was already accepted or declined")}
)

// Bounds of what a tenant sends.
const (
	MaxNameLength        = 255
	MaxDescriptionLength = 2000
	MaxInputLength       = 8000
	MaxLinkIDs           = 100
	MaxConversations     = 500
)

func checkText(field, s string, min, max int) error {
	n := utf8.RuneCountInString(s)
	if n < min || n > max {
		if min > 0 {
			return invalid(fmt.Sprintf("%s must be %d to %d characters", field, min, max), "body", field)
		}
		return invalid(fmt.Sprintf("%s must be at most %d characters", field, max), "body", field)
	}
	return nil
}

// Solution is a solution with its linked resources.
type Solution struct {
	Record
	Agents         []LinkedAgent
	KnowledgeBases []LinkedKnowledgeBase
	Sources        []LinkedSource
}

// Create makes a solution.
func (s *Service) Create(ctx context.Context, accountID, name, description string) (Solution, error) {
	name = strings.TrimSpace(name)
	if err := checkText("name", name, 1, MaxNameLength); err != nil {
		return Solution{}, err
	}
	if err := checkText("description", description, 0, MaxDescriptionLength); err != nil {
		return Solution{}, err
	}
	sol, err := s.repo.create(ctx, accountID, name, description)
	if err != nil {
		return Solution{}, err
	}
	return s.Get(ctx, accountID, sol.ID)
}

// Get returns a solution with its links.
func (s *Service) Get(ctx context.Context, accountID, id string) (Solution, error) {
	sol, err := s.repo.byID(ctx, accountID, id)
	if err != nil {
		return Solution{}, err
	}
	out := Solution{Record: sol}
	out.Agents, out.KnowledgeBases, out.Sources, err = s.repo.links(ctx, accountID, id)
	return out, err
}

// List pages through the account's solutions.
func (s *Service) List(ctx context.Context, accountID, search, sort string, desc bool, page, limit int) ([]SolutionSummary, int, error) {
	return s.repo.list(ctx, accountID, search, sort, desc, paging.Offset(page, limit), limit)
}

// Update changes a solution's name or description.
func (s *Service) Update(ctx context.Context, accountID, id string, name, description *string) (Solution, error) {
	if name != nil {
		n := strings.TrimSpace(*name)
		if err := checkText("name", n, 1, MaxNameLength); err != nil {
			return Solution{}, err
		}
		name = &n
	}
	if description != nil {
		if err := checkText("description", *description, 0, MaxDescriptionLength); err != nil {
			return Solution{}, err
		}
	}
	if _, err := s.repo.update(ctx, accountID, id, name, description); err != nil {
		return Solution{}, err
	}
	return s.Get(ctx, accountID, id)
}

// Delete removes a solution and its links; the resources stay.
func (s *Service) Delete(ctx context.Context, accountID, id string) error {
	return s.repo.remove(ctx, accountID, id)
}

// NotLinkableError names ids that are not resources of the account (or
// were deleted): nothing was linked.
type NotLinkableError struct {
	Kind  string
	IDs   []string
	Index int // of the first of IDs in the request's ids
}

// As reads the refusal as the fault vocabulary's Invalid: ids in the body
// that name nothing of the account's (another account's among them) are
// the request's fault, a 422 at the first of them.
func (e *NotLinkableError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidAt([]any{"body", "ids", e.Index}, e.Error()+" in this account", "value_error").Because(e)
	}
	return ok
}

func (e *NotLinkableError) Error() string {
	return fmt.Sprintf("%s not found: %s", e.Kind, strings.Join(e.IDs, ", "))
}

// Link links resources of a kind (LinkAgents…); already linked ones
// are ignored.
func (s *Service) Link(ctx context.Context, accountID, solutionID, kind string, requested []string) (Solution, error) {
	ids, err := checkIDs(requested)
	if err != nil {
		return Solution{}, err
	}
	if _, err := s.repo.byID(ctx, accountID, solutionID); err != nil {
		return Solution{}, err
	}
	missing, err := s.repo.missing(ctx, accountID, kind, ids)
	if err != nil {
		return Solution{}, err
	}
	if len(missing) > 0 {
		return Solution{}, &NotLinkableError{Kind: kindNoun[kind], IDs: missing, Index: max(0, slices.IndexFunc(requested, func(id string) bool { return strings.EqualFold(id, missing[0]) }))}
	}
	if err := s.repo.link(ctx, accountID, solutionID, kind, ids); err != nil {
		return Solution{}, err
	}
	return s.Get(ctx, accountID, solutionID)
}

// Unlink removes links; ids not linked are ignored.
func (s *Service) Unlink(ctx context.Context, accountID, solutionID, kind string, ids []string) (Solution, error) {
	ids, err := checkIDs(ids)
	if err != nil {
		return Solution{}, err
	}
	if err := s.repo.unlink(ctx, accountID, solutionID, kind, ids); err != nil {
		return Solution{}, err
	}
	return s.Get(ctx, accountID, solutionID)
}

var kindNoun = map[string]string{LinkAgents: "Agent", LinkKnowledgeBases: "Knowledge base", LinkSources: "Source connection"}

func checkIDs(ids []string) ([]string, error) {
	if len(ids) > MaxLinkIDs {
		return nil, invalid(fmt.Sprintf("ids holds at most %d ids", MaxLinkIDs), "body", "ids")
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.ToLower(id)
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// Search runs account search (GET /search) for the caller's account.
func (s *Service) Search(ctx context.Context, accountID, q, entityType string, limit int) ([]search.Result, error) {
	return search.Account(ctx, s.DB, accountID, q, entityType, limit)
}
