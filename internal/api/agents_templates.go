package api

import (
	"context"

	"github.com/agentry/agentry/internal/agents"
)

// The templates listing (extension): the templates of POST /agents
// `agent_template`, and whether this server can run what each makes.

// AgentTemplateResponse is one template.
type AgentTemplateResponse struct {
	Name               string `json:"name"`
	Description        string `json:"description"`
	DefaultTriggerType string `json:"default_trigger_type"`
	NeedsKnowledgeBase bool   `json:"needs_knowledge_base"`
	// Available: its workflow runs here for its default trigger.
	Available bool `json:"available" doc:"Whether this server can run the template's workflow for its default trigger; false while a step type it uses (knowledge, mail) is not available yet."`
	// UnavailableStepTypes are the step types of the default trigger's
	// workflow this server does not provide yet.
	UnavailableStepTypes []string                       `json:"unavailable_step_types"`
	Triggers             []AgentTemplateTriggerResponse `json:"triggers"`
}

// AgentTemplateTriggerResponse is a trigger a template supports.
type AgentTemplateTriggerResponse struct {
	TriggerType          string   `json:"trigger_type"`
	Available            bool     `json:"available"`
	UnavailableStepTypes []string `json:"unavailable_step_types"`
}

type listAgentTemplatesOutput struct{ Body any }

// listTemplatesDoc describes GET /agents/templates (routes in api.go).
const listTemplatesDoc = "The templates POST /agents accepts as agent_template, the triggers each supports, and whether this server can run " +
	"the workflow it makes: a template using step types of an area not available yet (knowledge, mail) is listed with " +
	"available false and those step types."

func (s *Server) listAgentTemplates(ctx context.Context, _ *struct{}) (*listAgentTemplatesOutput, error) {
	list := agents.Templates(s.deps.Runs.Engine.Registry.Missing)
	items := make([]AgentTemplateResponse, len(list))
	for i, t := range list {
		r := AgentTemplateResponse{Name: t.Name, Description: t.Description, DefaultTriggerType: t.DefaultTrigger,
			NeedsKnowledgeBase: t.NeedsKnowledgeBase, Available: t.Available(), UnavailableStepTypes: []string{}}
		for _, tr := range t.Triggers {
			r.Triggers = append(r.Triggers, AgentTemplateTriggerResponse{TriggerType: tr.TriggerType,
				Available: len(tr.Missing) == 0, UnavailableStepTypes: tr.Missing})
			if tr.TriggerType == t.DefaultTrigger {
				r.UnavailableStepTypes = tr.Missing
			}
		}
		items[i] = r
	}
	// One page: the templates are a fixed, short list.
	return &listAgentTemplatesOutput{Body: List(ctx, items, PageOf(1, max(len(items), 1), len(items)),
		func(items []AgentTemplateResponse, _ Pagination) any { return items })}, nil
}
