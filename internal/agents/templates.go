package agents

import (
	def "github.com/agentry/agentry/internal/agents/definition"
)

// TemplateListing describes a template of POST /agents `agent_template` for
// the templates listing: which triggers it supports and, for each, whether
// this server can run the workflow it makes. A template whose steps belong
// to an area this server does not have yet (knowledge bases, mail) is
// listed as unavailable for that trigger, with the missing step types; it
// becomes available by itself once the area registers its steps.
type TemplateListing struct {
	Name               string
	Description        string
	DefaultTrigger     string
	NeedsKnowledgeBase bool
	Triggers           []TemplateTrigger
}

// TemplateTrigger is one trigger of a template.
type TemplateTrigger struct {
	TriggerType string
	// Missing lists the step types of the workflow this server cannot
	// run yet; empty when it can.
	Missing []string
}

// Available reports whether the template's workflow runs for its default
// trigger on this server.
func (t TemplateListing) Available() bool {
	for _, tr := range t.Triggers {
		if tr.TriggerType == t.DefaultTrigger {
			return len(tr.Missing) == 0
		}
	}
	return false
}

// listingKnowledgeBase stands in for the knowledge base a template that
// searches one needs, so its workflow can be built to see its step types.
const listingKnowledgeBase = "00000000-0000-0000-0000-000000000000"

// Templates lists the templates with, for each trigger, the step types of
// its workflow that missing (the engine's registry) says are unavailable.
func Templates(missing func(*def.Definition) []string) []TemplateListing {
	infos := def.TemplateInfos()
	out := make([]TemplateListing, 0, len(infos))
	for _, info := range infos {
		l := TemplateListing{Name: string(info.Name), Description: info.Description,
			DefaultTrigger: string(info.DefaultTrigger), NeedsKnowledgeBase: info.NeedsKnowledgeBase}
		for _, trig := range info.Triggers {
			p := def.TemplateParams{Trigger: trig}
			if info.NeedsKnowledgeBase {
				p.KnowledgeBaseID = listingKnowledgeBase
			}
			tt := TemplateTrigger{TriggerType: string(trig), Missing: []string{}}
			if d, _, err := def.NewFromTemplate(info.Name, l.Name, p); err == nil && missing != nil {
				tt.Missing = append(tt.Missing, missing(d)...)
			}
			l.Triggers = append(l.Triggers, tt)
		}
		out = append(out, l)
	}
	return out
}
