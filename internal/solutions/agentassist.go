package solutions

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/accounts/directory"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/llm"
)

// The agent assistant writes an agent's whole workflow (generate-steps) or
// one step's configuration (step-config). What it proposes passes the same
// validator as PUT /agents/{id}/definition before it is returned; turns are
// stored per agent and step type, and accepting or declining one only
// records the answer (applying it is a PUT of the definition).

// WorkflowStepType is the step_type under which generate-steps turns are
// kept in the conversation history.
const WorkflowStepType = "agent_workflow"

// StepsRequest is POST /agents/{id}/ai-assistant/generate-steps.
type StepsRequest struct {
	AccountID, UserID, AgentID string
	Input                      string
	AgentDescription           *string
	CurrentSteps               []any
	Mode                       string // generate_full or modify_workflow
	TriggerType                *string
}

// StepsResult is the generated workflow.
type StepsResult struct {
	ConversationID   string
	Steps            []map[string]any
	Note             string
	Success          bool
	IntentAssessment string
	AgentConfig      map[string]any
}

var reUUIDText = regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)

// GenerateSteps builds a complete, valid workflow for an agent.
func (s *Service) GenerateSteps(ctx context.Context, in StepsRequest) (StepsResult, error) {
	if err := checkText("user_input", strings.TrimSpace(in.Input), 1, MaxInputLength); err != nil {
		return StepsResult{}, err
	}
	if in.Mode == "" {
		in.Mode = "generate_full"
	}
	if in.Mode != "generate_full" && in.Mode != "modify_workflow" {
		return StepsResult{}, invalid("mode must be generate_full or modify_workflow", "body", "mode")
	}
	agent, err := s.Agents.Get(ctx, in.AccountID, in.AgentID)
	if err != nil {
		return StepsResult{}, err
	}
	trigger := agent.TriggerType
	if in.TriggerType != nil && *in.TriggerType != "" {
		if !def.TriggerType(*in.TriggerType).Known() {
			return StepsResult{}, invalid(fmt.Sprintf("trigger_type must be one of %v", def.TriggerTypes()), "body", "trigger_type")
		}
		trigger = *in.TriggerType
	}
	var (
		d        *def.Definition
		note     string
		problems []string
	)
	if s.Model != nil && s.AssistantModel != "" {
		d, note, problems, err = s.modelSteps(ctx, in, agent.Name, trigger)
	} else {
		d, note, err = s.offlineSteps(ctx, in, agent.Name, trigger)
		if err == nil && d != nil {
			problems, err = s.checkSteps(ctx, in.AccountID, in.AgentID, trigger, d)
		}
	}
	if err != nil {
		return StepsResult{}, err
	}
	res := StepsResult{Steps: []map[string]any{}, IntentAssessment: "clear", Note: note}
	if d == nil || len(problems) > 0 {
		res.IntentAssessment = "cannot_build"
		if len(problems) > 0 {
			res.Note += " The workflow did not pass validation: " + strings.Join(problems, "; ")
		}
	} else {
		res.Success = true
		b, _ := json.Marshal(d)
		var m struct {
			Steps []map[string]any `json:"child_steps"`
		}
		_ = json.Unmarshal(b, &m)
		res.Steps = m.Steps
		if res.Steps == nil {
			res.Steps = []map[string]any{}
		}
	}
	var cfg json.RawMessage
	if res.Success {
		cfg, _ = json.Marshal(map[string]any{"child_steps": res.Steps})
	}
	t, err := s.repo.createAgentTurn(ctx, AgentAssistantTurn{AccountID: in.AccountID, AgentID: in.AgentID,
		StepType: WorkflowStepType, UserInput: in.Input, AINote: &res.Note, ResultingConfig: cfg})
	if err != nil {
		return StepsResult{}, err
	}
	res.ConversationID = t.ID
	return res, nil
}

func (s *Service) checkSteps(ctx context.Context, accountID, agentID, trigger string, d *def.Definition) ([]string, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return s.Agents.CheckDefinition(ctx, accountID, agentID, trigger, b, nil)
}

// offlineSteps maps the request onto a template for the agent's trigger,
// falling back to simpler templates the trigger supports.
func (s *Service) offlineSteps(ctx context.Context, in StepsRequest, name, trigger string) (*def.Definition, string, error) {
	text := in.Input
	if in.AgentDescription != nil {
		text += "\n" + *in.AgentDescription
	}
	r := read(text)
	kb := ""
	if id := reUUIDText.FindString(text); id != "" {
		if ok, err := s.exists(ctx, in.AccountID, ResourceKnowledgeBase, strings.ToLower(id)); err != nil {
			return nil, "", err
		} else if ok {
			kb = strings.ToLower(id)
		}
	}
	if kb == "" {
		if id, err := knowledge.LatestKnowledgeBase(ctx, s.DB, in.AccountID); err == nil {
			kb = id
		}
	}
	to := ""
	if len(r.emails) > 0 {
		to = r.emails[0]
	} else if r.has("email", "emails", "mail") && in.UserID != "" {
		if u, err := directory.GetUser(ctx, s.DB, in.UserID); err == nil {
			to = u.Email
		}
	}
	var order []def.TemplateName
	switch r.intent() {
	case intentReport:
		order = []def.TemplateName{def.TemplateScheduledReport, def.TemplateSummarizer}
	case intentSummarize:
		order = []def.TemplateName{def.TemplateSummarizer, def.TemplateScheduledReport}
	case intentNotify:
		order = []def.TemplateName{def.TemplateContentChangeNotifier, def.TemplateSummarizer}
	case intentExtract:
		order = []def.TemplateName{def.TemplateJSONExtractor}
	case intentWebhook:
		order = []def.TemplateName{def.TemplateWebhookPipeline}
	case intentAnswer:
		if kb != "" && (r.has("knowledge", "documents", "docs", "manual", "manuals", "policies", "sources", "base") || reUUIDText.MatchString(text)) {
			order = []def.TemplateName{def.TemplateRetrievalExample}
		}
		order = append(order, def.TemplateSimpleQA)
	}
	order = append(order, def.TemplateSimpleQA, def.TemplateSummarizer, def.TemplateBlank)
	for _, t := range order {
		p := def.TemplateParams{Trigger: def.TriggerType(trigger), NotifyEmail: to, WebhookURL: r.webhook}
		if t == def.TemplateRetrievalExample || t == def.TemplateScheduledReport {
			p.KnowledgeBaseID = kb
		}
		d, _, err := def.NewFromTemplate(t, name, p)
		if err != nil {
			continue
		}
		if in.AgentDescription != nil {
			d.Description = clip(*in.AgentDescription, 1000)
		}
		var steps []string
		d.Walk("", func(v def.Visit) bool { steps = append(steps, string(v.Step.Type)); return true })
		note := fmt.Sprintf("Built from the %s template for a %s trigger: %s.", t, trigger, strings.Join(steps, " → "))
		if in.Mode == "modify_workflow" {
			note += " The built-in assistant writes the whole workflow afresh from the request; compare it with the current steps before saving."
		}
		if to != "" && strings.Contains(strings.Join(steps, ","), "send_email") {
			note += " Results are e-mailed to " + to + "."
		}
		return d, note, nil
	}
	return nil, "No template fits a " + trigger + " trigger.", nil
}

var stepsSchema = json.RawMessage(`{"type": "object", "required": ["note", "child_steps"], "properties": {
  "note": {"type": "string"}, "child_steps": {"type": "array", "items": {"type": "object"}}}}`)

// modelSteps asks the model for the workflow, feeding validation errors
// back at most maxRepairs times.
func (s *Service) modelSteps(ctx context.Context, in StepsRequest, name, trigger string) (*def.Definition, string, []string, error) {
	cur, _ := json.Marshal(in.CurrentSteps)
	msgs := []llm.Message{
		llm.System("You write agent workflows: a JSON object {\"note\", \"child_steps\"}, where child_steps is a tree of steps " +
			"({id, name, step_type, …configuration, child_steps}) for an agent with a " + trigger + " trigger. Step types: " +
			strings.Join(stepTypeNames(), ", ") + "."),
		llm.User(fmt.Sprintf("Mode: %s\nCurrent steps: %s\nRequest: %s", in.Mode, cur, in.Input)),
	}
	var problems []string
	var note string
	for attempt := 0; attempt <= maxRepairs; attempt++ {
		resp, err := s.Model.Chat(ctx, llm.ChatRequest{Model: s.AssistantModel, Messages: msgs, MaxTokens: 4000,
			ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "workflow", Schema: stepsSchema},
			Meta:           llm.CallMeta{AccountID: in.AccountID, Purpose: "assistant"}})
		if err != nil {
			return nil, "", nil, err
		}
		text := llm.StripCodeFence(resp.Message.Text())
		var out struct {
			Note  string `json:"note"`
			Steps []any  `json:"child_steps"`
		}
		var d *def.Definition
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			problems = []string{"the reply is not the JSON object asked for: " + err.Error()}
		} else {
			note = out.Note
			b, _ := json.Marshal(map[string]any{"name": name, "child_steps": out.Steps})
			var perr error
			d, problems, perr = parseAndCheck(ctx, s, in.AccountID, in.AgentID, trigger, b)
			if perr != nil {
				return nil, "", nil, perr
			}
		}
		if len(problems) == 0 && d != nil {
			return d, note, nil, nil
		}
		msgs = append(msgs, llm.Assistant(text),
			llm.User("The workflow is invalid:\n- "+strings.Join(problems, "\n- ")+"\nReply with the corrected workflow."))
	}
	return nil, note, problems, nil
}

func parseAndCheck(ctx context.Context, s *Service, accountID, agentID, trigger string, b []byte) (*def.Definition, []string, error) {
	probs, err := s.Agents.CheckDefinition(ctx, accountID, agentID, trigger, b, nil)
	if err != nil || len(probs) > 0 {
		return nil, probs, err
	}
	d, _, err := def.ParseDefinition(b)
	if err != nil {
		return nil, []string{err.Error()}, nil
	}
	return d, nil, nil
}

func stepTypeNames() []string {
	var out []string
	for _, t := range def.StepTypes() {
		out = append(out, string(t))
	}
	return out
}

// StepConfigRequest is POST /agents/{id}/ai-assistant/step-config.
type StepConfigRequest struct {
	AccountID, UserID, AgentID string
	StepType, Input            string
	CurrentConfig              map[string]any
	StepID                     *string
}

// StepConfigResult is a proposed configuration.
type StepConfigResult struct {
	ConversationID string
	StepType       string
	Config         map[string]any
	Note           string
	Success        bool
}

var reNumber = regexp.MustCompile(`\b([0-9]{1,4})\b`)

// StepConfig proposes one step's configuration, checked by placing the step
// alone in a workflow for the agent's trigger.
func (s *Service) StepConfig(ctx context.Context, in StepConfigRequest) (StepConfigResult, error) {
	if err := checkText("user_input", strings.TrimSpace(in.Input), 1, MaxInputLength); err != nil {
		return StepConfigResult{}, err
	}
	t := def.StepType(in.StepType)
	spec, ok := def.Spec(t)
	if !ok {
		return StepConfigResult{}, invalid(fmt.Sprintf("step_type %q is not a step type (one of %s)", in.StepType, strings.Join(stepTypeNames(), ", ")), "body", "step_type")
	}
	agent, err := s.Agents.Get(ctx, in.AccountID, in.AgentID)
	if err != nil {
		return StepConfigResult{}, err
	}
	cfg := map[string]any{}
	for k, v := range in.CurrentConfig {
		cfg[k] = v
	}
	r := read(in.Input)
	var changed []string
	set := func(k string, v any) {
		cfg[k] = v
		changed = append(changed, k)
	}
	kb := func() string {
		if id := reUUIDText.FindString(in.Input); id != "" {
			return strings.ToLower(id)
		}
		id, _ := knowledge.LatestKnowledgeBase(ctx, s.DB, in.AccountID)
		return id
	}
	num := func(f def.Field) (int, bool) {
		m := reNumber.FindStringSubmatch(in.Input)
		if m == nil {
			return 0, false
		}
		n, _ := strconv.Atoi(m[1])
		if (f.Min != nil && float64(n) < *f.Min) || (f.Max != nil && float64(n) > *f.Max) {
			return 0, false
		}
		return n, true
	}
	instruction := strings.TrimSpace(in.Input)
	for _, f := range spec.Fields {
		_, present := cfg[f.Name]
		switch {
		case f.Name == "prompt_template":
			set(f.Name, instruction+"\n\n{{input}}")
		case f.Name == "knowledge_base_id" && !present:
			if id := kb(); id != "" {
				set(f.Name, id)
			}
		case f.Name == "query" && !present:
			set(f.Name, "{{input}}")
		case f.Name == "to" && len(r.emails) > 0:
			set(f.Name, r.emails[0])
		case f.Name == "subject" && len(r.quoted) > 0:
			set(f.Name, r.quoted[0])
		case f.Name == "url" && (len(r.urls) > 0 || r.webhook != ""):
			u := r.webhook
			if u == "" {
				u = r.urls[0]
			}
			set(f.Name, u)
		case f.Kind == def.KindConditions && (len(r.quoted) > 0 || !present):
			v := "NONE"
			op := "not_equals"
			if len(r.quoted) > 0 {
				v, op = r.quoted[0], "contains"
			}
			set(f.Name, []any{map[string]any{"operator": op, "value": v}})
		case f.Kind == def.KindRegexRules && len(r.quoted) > 0:
			repl := ""
			if len(r.quoted) > 1 {
				repl = r.quoted[1]
			}
			set(f.Name, []any{map[string]any{"pattern": regexp.QuoteMeta(r.quoted[0]), "replacement": repl}})
		case f.Kind == def.KindInteger && strings.Contains(strings.ToLower(in.Input), strings.ReplaceAll(f.Name, "_", " ")):
			if n, ok := num(f); ok {
				set(f.Name, n)
			}
		case f.Required && !present:
			switch f.Kind {
			case def.KindTemplate:
				set(f.Name, "{{input}}")
			case def.KindString:
				if len(f.Enum) > 0 {
					set(f.Name, f.Enum[0])
				} else if len(r.quoted) > 0 {
					set(f.Name, r.quoted[0])
				}
			case def.KindInteger, def.KindNumber:
				if f.Default != nil {
					set(f.Name, f.Default)
				}
			case def.KindBoolean:
				set(f.Name, false)
			}
		}
	}
	// Check the step alone (with a display after it unless it must be a
	// leaf) in a workflow for the agent's trigger.
	step := map[string]any{"id": "proposed", "name": "Proposed " + string(t), "step_type": string(t)}
	for k, v := range cfg {
		step[k] = v
	}
	if !spec.Leaf && t != def.StepDisplayResult && t != def.StepStreamingResult {
		step["child_steps"] = []any{map[string]any{"id": "show", "name": "Show", "step_type": "display_result", "template": "{{input}}"}}
	}
	b, _ := json.Marshal(map[string]any{"name": agent.Name, "child_steps": []any{step}})
	probs, err := s.Agents.CheckDefinition(ctx, in.AccountID, in.AgentID, agent.TriggerType, b, nil)
	if err != nil {
		return StepConfigResult{}, err
	}
	res := StepConfigResult{StepType: in.StepType, Config: cfg, Success: len(probs) == 0}
	if len(changed) > 0 {
		res.Note = fmt.Sprintf("Set %s of the %s step from your instruction.", strings.Join(changed, ", "), t)
	} else {
		res.Note = fmt.Sprintf("Nothing in the instruction maps onto a field of the %s step; the configuration is unchanged.", t)
	}
	if len(probs) > 0 {
		res.Note += " It does not validate yet: " + strings.Join(probs, "; ")
	}
	cb, _ := json.Marshal(cfg)
	turn, err := s.repo.createAgentTurn(ctx, AgentAssistantTurn{AccountID: in.AccountID, AgentID: in.AgentID,
		StepType: in.StepType, StepID: in.StepID, UserInput: in.Input, AINote: &res.Note, ResultingConfig: cb})
	if err != nil {
		return StepConfigResult{}, err
	}
	res.ConversationID = turn.ID
	return res, nil
}

// AgentHistory lists an agent's assistant turns of a step type.
func (s *Service) AgentHistory(ctx context.Context, accountID, agentID, stepType string, stepID *string, limit, offset int) ([]AgentAssistantTurn, int, error) {
	if _, err := s.Agents.Get(ctx, accountID, agentID); err != nil {
		return nil, 0, err
	}
	return s.repo.agentTurns(ctx, accountID, agentID, stepType, stepID, limit, offset)
}

// MarkSuggestion records accepted or declined on a turn; nothing else changes.
func (s *Service) MarkSuggestion(ctx context.Context, accountID, agentID, turnID string, accepted bool) error {
	if _, err := s.Agents.Get(ctx, accountID, agentID); err != nil {
		return err
	}
	return s.repo.markAgentTurn(ctx, accountID, agentID, turnID, accepted)
}
