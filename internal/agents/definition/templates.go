package definition

import (
	"errors"
	"fmt"
)

// Templates are the starting workflows of POST /agents `agent_template`.
// Each produces a definition that validates and runs for the trigger it is
// made for; where the workflow depends on the trigger (streaming the answer
// to an interactive caller, loading the content of a content trigger) the
// template adapts to it.

// TemplateName names a built-in template.
type TemplateName string

// The templates of the API.
const (
	TemplateBlank                 TemplateName = "blank"
	TemplateRetrievalExample      TemplateName = "retrieval_example"
	TemplateSimpleQA              TemplateName = "simple_qa"
	TemplateSummarizer            TemplateName = "summarizer"
	TemplateJSONExtractor         TemplateName = "json_extractor"
	TemplateContentChangeNotifier TemplateName = "content_change_notifier"
	TemplateScheduledReport       TemplateName = "scheduled_report"
	TemplateWebhookPipeline       TemplateName = "webhook_pipeline"
)

// TemplateInfo describes a template for listings and for the handler's
// choice of trigger.
type TemplateInfo struct {
	Name           TemplateName
	Description    string
	DefaultTrigger TriggerType   // used when the request does not set trigger_type
	Triggers       []TriggerType // trigger types the template supports
	// NeedsKnowledgeBase: TemplateParams.KnowledgeBaseID is required.
	NeedsKnowledgeBase bool
}

// TemplateParams fills in what a template cannot invent.
type TemplateParams struct {
	Trigger         TriggerType // "" means the template's DefaultTrigger
	KnowledgeBaseID string      // required by retrieval_example; optional context for scheduled_report
	Model           string      // model of prompt_call steps; the account default when empty
	NotifyEmail     string      // content_change_notifier, scheduled_report: also e-mail the result
	WebhookURL      string      // webhook_pipeline; a placeholder (reported as a warning) when empty
}

// Template errors.
var (
	ErrUnknownTemplate       = errors.New("unknown agent template")
	ErrTemplateTrigger       = errors.New("template does not support this trigger type")
	ErrTemplateKnowledgeBase = errors.New("template needs a knowledge base: pass knowledge_base_id (create one first)")
)

var (
	allTriggers   = TriggerTypes()
	inputTriggers = []TriggerType{TriggerDynamicInput, TriggerTemplateInput, TriggerEmailReceived}
	textTriggers  = []TriggerType{TriggerDynamicInput, TriggerTemplateInput, TriggerNewContent, TriggerEmailReceived}
)

var templateList = []TemplateInfo{
	{Name: TemplateBlank, Description: "One step that shows the input; a starting point to build on.", DefaultTrigger: TriggerDynamicInput, Triggers: allTriggers},
	{Name: TemplateRetrievalExample, Description: "Search a knowledge base and answer from the passages found.", DefaultTrigger: TriggerDynamicInput, Triggers: inputTriggers, NeedsKnowledgeBase: true},
	{Name: TemplateSimpleQA, Description: "Answer the input with a language model.", DefaultTrigger: TriggerDynamicInput, Triggers: inputTriggers},
	{Name: TemplateSummarizer, Description: "Summarise the input (or the new content).", DefaultTrigger: TriggerDynamicInput, Triggers: textTriggers},
	{Name: TemplateJSONExtractor, Description: "Extract structured fields from text as a JSON object.", DefaultTrigger: TriggerDynamicInput, Triggers: textTriggers},
	{Name: TemplateContentChangeNotifier, Description: "On new content, summarise what changed, record it in the content's metadata and optionally e-mail it.", DefaultTrigger: TriggerNewContent, Triggers: []TriggerType{TriggerNewContent}},
	{Name: TemplateScheduledReport, Description: "On a schedule, write a report (optionally from a knowledge base) and optionally e-mail it.", DefaultTrigger: TriggerSchedule, Triggers: []TriggerType{TriggerSchedule, TriggerDynamicInput, TriggerTemplateInput}},
	{Name: TemplateWebhookPipeline, Description: "Turn the input into a JSON payload and POST it to a webhook.", DefaultTrigger: TriggerDynamicInput, Triggers: textTriggers},
}

// TemplateInfos lists the templates in API order.
func TemplateInfos() []TemplateInfo {
	return append([]TemplateInfo(nil), templateList...)
}

// LookupTemplate returns a template's description.
func LookupTemplate(name TemplateName) (TemplateInfo, bool) {
	for _, t := range templateList {
		if t.Name == name {
			return t, true
		}
	}
	return TemplateInfo{}, false
}

// PlaceholderWebhookURL is what webhook_pipeline posts to until edited.
const PlaceholderWebhookURL = "https://hooks.example.com/agentry"

// NewFromTemplate builds the definition of a template for a trigger and
// returns it with the trigger type used.
func NewFromTemplate(name TemplateName, agentName string, p TemplateParams) (*Definition, TriggerType, error) {
	info, ok := LookupTemplate(name)
	if !ok {
		return nil, "", fmt.Errorf("%w %q", ErrUnknownTemplate, name)
	}
	trig := p.Trigger
	if trig == "" {
		trig = info.DefaultTrigger
	}
	if !contains(triggerStrings(info.Triggers), string(trig)) {
		return nil, "", fmt.Errorf("%w: %s supports %v, not %q", ErrTemplateTrigger, name, info.Triggers, trig)
	}
	if info.NeedsKnowledgeBase && p.KnowledgeBaseID == "" {
		return nil, "", fmt.Errorf("%s: %w", name, ErrTemplateKnowledgeBase)
	}
	b := tb{p: p, trig: trig}
	var steps []*Step
	switch name {
	case TemplateBlank:
		steps = []*Step{b.display("show", "Show input")}
	case TemplateRetrievalExample:
		steps = []*Step{b.retrieval("retrieve", "Search knowledge base", "{{input}}",
			b.answer("answer", "Answer from passages",
				"Answer the question using only the passages below. Say so when they do not contain the answer, and cite the titles you used.",
				"Question: {{agent.input}}\n\nPassages:\n{{input}}"))}
	case TemplateSimpleQA:
		steps = []*Step{b.answer("answer", "Answer", "You are a helpful assistant. Answer clearly and concisely.", "{{input}}")}
	case TemplateSummarizer:
		steps = b.fromContent(b.answer("summarize", "Summarize",
			"You summarise documents faithfully, without adding facts.",
			"Summarise the following text in a few short paragraphs, then list its key points.\n\n{{input}}"))
	case TemplateJSONExtractor:
		steps = b.fromContent(b.jsonPrompt("extract", "Extract fields",
			"You extract structured data. Reply with one JSON object and nothing else.",
			"From the text below, extract a JSON object with the keys \"title\", \"people\" (list of names), \"organizations\" (list), \"dates\" (list of ISO dates) and \"summary\" (one sentence). Use null or [] when absent.\n\n{{input}}",
			b.step("parse", "Check JSON", StepExtractContent, map[string]any{"format": "json", "path": "$"},
				b.display("show", "Show JSON"))))
	case TemplateContentChangeNotifier:
		notify := []*Step{b.step("record", "Record change summary", StepWriteMetadata,
			map[string]any{"metadata_key": "change_summary", "content": "{{input}}"})}
		if p.NotifyEmail != "" {
			notify = append(notify, b.email("notify", "E-mail change summary", "Notable content change"))
		}
		gate := b.step("notable", "Only notable changes", StepGate, map[string]any{
			"conditions": []any{map[string]any{"operator": "not_equals", "value": "NONE"}},
		}, notify...)
		steps = []*Step{b.step("load", "Load content", StepLoadContent, nil,
			b.prompt("summarize", "Summarize change",
				"You review new and updated documents for a team.",
				"Summarise in a few sentences what this document says that is new or notable. Reply with exactly NONE if nothing is worth telling the team.\n\n{{input}}",
				gate))}
	case TemplateScheduledReport:
		outputs := []*Step{b.display("show", "Show report")}
		if p.NotifyEmail != "" {
			outputs = append(outputs, b.email("send", "E-mail report", "Scheduled report"))
		}
		report := b.prompt("report", "Write report",
			"You write short, factual periodic reports with a summary, highlights and open questions.",
			"Write this period's report.\n\nContext:\n{{input}}", outputs...)
		if p.KnowledgeBaseID != "" {
			steps = []*Step{b.retrieval("gather", "Gather recent material", "latest updates, changes and open issues", report)}
		} else {
			steps = []*Step{report}
		}
	case TemplateWebhookPipeline:
		url := p.WebhookURL
		if url == "" {
			url = PlaceholderWebhookURL
		}
		steps = b.fromContent(b.jsonPrompt("shape", "Shape payload",
			"You convert text into JSON payloads. Reply with one JSON object and nothing else.",
			"Convert the following into a JSON object with the keys \"summary\", \"category\" and \"priority\" (low, medium or high).\n\n{{input}}",
			b.step("validate", "Check JSON", StepExtractContent, map[string]any{"format": "json", "path": "$"},
				b.step("post", "POST to webhook", StepWebhookCall, map[string]any{"url": url, "method": "POST", "body": "{{input}}", "include_response": true},
					b.display("show", "Show webhook response")))))
	}
	return &Definition{Name: agentName, Description: info.Description, Tags: []string{}, Steps: steps}, trig, nil
}

func triggerStrings(ts []TriggerType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// tb builds template steps.
type tb struct {
	p    TemplateParams
	trig TriggerType
}

func (b tb) step(id, name string, t StepType, cfg map[string]any, children ...*Step) *Step {
	if cfg == nil {
		cfg = map[string]any{}
	}
	s := &Step{ID: id, Name: name, Type: t, Config: cfg}
	if children != nil {
		s.Children = children
	}
	return s
}

func (b tb) display(id, name string) *Step {
	return b.step(id, name, StepDisplayResult, map[string]any{"template": "{{input}}", "html_format": false})
}

func (b tb) prompt(id, name, system, prompt string, children ...*Step) *Step {
	cfg := map[string]any{"system_template": system, "prompt_template": prompt, "simple_format": true}
	if b.p.Model != "" {
		cfg["model"] = b.p.Model
	}
	return b.step(id, name, StepPromptCall, cfg, children...)
}

// jsonPrompt is a prompt_call in JSON mode, so any model, the offline one
// included, replies with one JSON object.
func (b tb) jsonPrompt(id, name, system, prompt string, children ...*Step) *Step {
	st := b.prompt(id, name, system, prompt, children...)
	st.Config["response_format"] = "json"
	return st
}

// answer is a prompt_call whose reply is the run output: streamed to
// interactive callers, shown otherwise.
func (b tb) answer(id, name, system, prompt string) *Step {
	if b.trig.Interactive() {
		return b.prompt(id, name, system, prompt, b.step(id+"-stream", "Stream answer", StepStreamingResult, nil))
	}
	return b.prompt(id, name, system, prompt, b.display(id+"-show", "Show answer"))
}

func (b tb) retrieval(id, name, query string, children ...*Step) *Step {
	return b.step(id, name, StepRetrieval, map[string]any{"knowledge_base_id": b.p.KnowledgeBaseID, "query": query, "top_k": 5}, children...)
}

func (b tb) email(id, name, subject string) *Step {
	return b.step(id, name, StepSendEmail, map[string]any{"to": b.p.NotifyEmail, "subject": subject, "body": "{{input}}"})
}

// fromContent prefixes a load_content step for content triggers, whose
// input is a reference to the new content rather than its text.
func (b tb) fromContent(first *Step) []*Step {
	if b.trig == TriggerNewContent {
		return []*Step{b.step("load", "Load content", StepLoadContent, nil, first)}
	}
	return []*Step{first}
}
