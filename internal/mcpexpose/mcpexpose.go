// Package mcpexpose owns which agents an account exposes as tools of its
// MCP server (an extension): the opt-in per agent, the tool's name and
// description, and the input schema derived from the agent's trigger.
// internal/mcpserver reads the list through the API.
package mcpexpose

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// New builds the service over the agents a answers for.
func New(db *store.DB, a Agents) *Service { return &Service{DB: db, Agents: a} }

// Agents is what the exposure reads of the agents area (mcpexpose →
// agents; the server supplies the agents' repository). Both answer only
// for a live agent of the account; Agent answers store.ErrNotFound for
// any other.
type Agents interface {
	AgentExists(ctx context.Context, accountID, agentID string) (bool, error)
	Agent(ctx context.Context, accountID, agentID string) (agentrow.Agent, error)
}

// Service is the exposure settings of agents.
type Service struct {
	DB     *store.DB
	Agents Agents
}

func (s *Service) repo() repo { return repo{s.DB} }

// Setting is how one agent is exposed.
type Setting struct {
	AgentID     string
	Enabled     bool
	ToolName    string // when enabled
	Description string // the tool's; the agent's own when not set
	InputSchema map[string]any
	UpdatedAt   *time.Time
}

// InputError is a request the rules refuse; Field names the body field.
type InputError struct{ Field, Msg string }

func (e *InputError) Error() string { return e.Field + ": " + e.Msg }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InputError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidField(e.Field, e.Msg).Because(e)
	}
	return ok
}

// ErrNotFound is an agent that is not the account's.
var ErrNotFound error = &fault.NotFound{What: "Agent", Err: store.ErrNotFound}

// ErrNameTaken is a tool name another agent of the account has.
var ErrNameTaken error = &fault.Conflict{Err: errors.New("another agent of the account is exposed under this tool name")}

// ReservedNames are the MCP server's own tools; an agent cannot take them.
var ReservedNames = []string{"list_agents", "get_agent", "create_agent", "run_agent", "get_agent_run", "cancel_agent_run",
	"search_agent_traces", "get_agent_attachment_references", "search_knowledge_base"}

var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// MaxDescription bounds a tool's description.
const MaxDescription = 1024

// Get answers an agent's setting (not enabled when never exposed).
func (s *Service) Get(ctx context.Context, accountID, agentID string) (Setting, error) {
	t, err := s.repo().get(ctx, accountID, agentID)
	if errors.Is(err, store.ErrNotFound) {
		ok, err := s.Agents.AgentExists(ctx, accountID, agentID)
		if err != nil {
			return Setting{}, err
		}
		if !ok {
			return Setting{}, ErrNotFound
		}
		return Setting{AgentID: agentID}, nil
	}
	if err != nil {
		return Setting{}, err
	}
	return setting(t), nil
}

// Put exposes an agent (enabled) or stops exposing it. name defaults to
// agent_<the agent's name>; only agents a caller can run with an input
// (dynamic_input, template_input) can be exposed.
func (s *Service) Put(ctx context.Context, accountID, agentID string, enabled bool, name, description *string) (Setting, error) {
	a, err := s.Agents.Agent(ctx, accountID, agentID)
	if err != nil {
		return Setting{}, err
	}
	if !enabled {
		if err := s.repo().remove(ctx, accountID, agentID); err != nil {
			return Setting{}, err
		}
		return Setting{AgentID: agentID}, nil
	}
	if !definition.TriggerType(a.TriggerType).Interactive() {
		return Setting{}, &InputError{Field: "enabled", Msg: "only agents with a dynamic_input or template_input trigger can be run as a tool; this one has " + a.TriggerType}
	}
	n := DefaultName(a.Name)
	if name != nil && *name != "" {
		n = *name
	}
	if !toolName.MatchString(n) {
		return Setting{}, &InputError{Field: "tool_name", Msg: "a tool name is a letter, then up to 63 letters, digits, _ or -"}
	}
	if slices.Contains(ReservedNames, n) {
		return Setting{}, &InputError{Field: "tool_name", Msg: n + " is the name of one of the MCP server's own tools"}
	}
	var desc *string
	if description != nil && *description != "" {
		if len(*description) > MaxDescription {
			return Setting{}, &InputError{Field: "description", Msg: "at most 1024 bytes"}
		}
		desc = description
	}
	if err := s.repo().put(ctx, accountID, agentID, n, desc); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Setting{}, ErrNameTaken
		}
		return Setting{}, err
	}
	return s.Get(ctx, accountID, agentID)
}

// List answers a page of the account's exposed agents that are not paused.
func (s *Service) List(ctx context.Context, accountID string, page, limit int) ([]Setting, int, error) {
	list, total, err := s.repo().list(ctx, accountID, paging.Offset(page, limit), limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Setting, len(list))
	for i, t := range list {
		out[i] = setting(t)
	}
	return out, total, nil
}

func setting(t exposedAgent) Setting {
	desc := "Runs the agent " + t.AgentName + " and returns its run, with the output."
	if t.AgentDescription != nil && *t.AgentDescription != "" {
		desc = *t.AgentDescription
	}
	if t.Description != nil {
		desc = *t.Description
	}
	up := t.UpdatedAt
	return Setting{AgentID: t.AgentID, Enabled: true, ToolName: t.ToolName, Description: desc,
		InputSchema: InputSchema(definition.TriggerType(t.TriggerType)), UpdatedAt: &up}
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// DefaultName is agent_<name>, in the letters a tool name allows.
func DefaultName(agentName string) string {
	n := "agent_" + strings.Trim(nonName.ReplaceAllString(strings.ToLower(agentName), "_"), "_")
	if len(n) > 64 {
		n = n[:64]
	}
	return strings.TrimRight(n, "_")
}

// InputSchema is the tool's input: what POST /agents/{agent_id}/runs
// takes from a caller, the input required where the trigger needs one.
func InputSchema(t definition.TriggerType) map[string]any {
	s := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"input":    map[string]any{"type": "string", "description": "The run's input."},
			"metadata": map[string]any{"type": "object", "description": "Values for the workflow's {{metadata.key}} placeholders."},
		},
		"additionalProperties": false,
	}
	if t == definition.TriggerDynamicInput {
		s["required"] = []any{"input"}
	}
	return s
}
