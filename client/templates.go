package client

import "context"

// AgentTemplate is one template of CreateAgentRequest.AgentTemplate, as the
// templates listing (an Agentry extension) describes it.
type AgentTemplate struct {
	Name               string `json:"name"`
	Description        string `json:"description"`
	DefaultTriggerType string `json:"default_trigger_type"`
	NeedsKnowledgeBase bool   `json:"needs_knowledge_base"`
	// Available: the server can run the template's workflow for its
	// default trigger; false while a step type it uses (knowledge, mail)
	// is not available yet, which UnavailableStepTypes lists.
	Available            bool                   `json:"available"`
	UnavailableStepTypes []string               `json:"unavailable_step_types"`
	Triggers             []AgentTemplateTrigger `json:"triggers"`
}

// AgentTemplateTrigger is a trigger a template supports, and whether its
// workflow for that trigger runs on the server.
type AgentTemplateTrigger struct {
	TriggerType          string   `json:"trigger_type"`
	Available            bool     `json:"available"`
	UnavailableStepTypes []string `json:"unavailable_step_types"`
}

// ListAgentTemplates lists the agent templates (GET /agents/templates).
func (c *Client) ListAgentTemplates(ctx context.Context, opts ...CallOption) ([]AgentTemplate, error) {
	p, err := ListPage[AgentTemplate](ctx, c, "/agents/templates", ListQuery{Paging: OnePage}, opts...)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}
