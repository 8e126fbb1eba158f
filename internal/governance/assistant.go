package governance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// The governance assistant turns a request in plain language into a plan of
// policy changes, which the caller accepts (applied in order, each result
// reported) or declines (nothing changes). The planner reads the request
// deterministically: the verbs (block, flag, disable, enable, delete), the
// kinds of data it names (e-mail addresses, phone numbers, card numbers,
// national ids, secrets), quoted terms, and, failing those, a "never …" /
// "do not …" sentence becomes a rule a model judges. The same request
// always gives the same plan, and no model is called (no credits).

// Action is one proposed change.
type Action struct {
	Type        string         `json:"action_type"` // create, update, delete, enable, disable
	Description string         `json:"description"`
	Params      map[string]any `json:"params"`
}

// Applied is the result of one action.
type Applied struct {
	Type        string  `json:"action_type"`
	Description string  `json:"description"`
	Success     bool    `json:"success"`
	Error       *string `json:"error"`
	PolicyID    *string `json:"policy_id"`
}

// Plan is a proposal.
type Plan struct {
	Conversation GovernanceConversation
	Note         string
	Actions      []Action
}

// ExamplePrompts show what the assistant understands.
var ExamplePrompts = []map[string]string{
	{"title": "Block personal data", "prompt": "Block e-mail addresses, phone numbers and card numbers in every agent's output"},
	{"title": "Flag secrets", "prompt": "Flag API keys and other secrets in run input"},
	{"title": "Blocked terms", "prompt": `Block the terms "Project Falcon" and "Q3 forecast"`},
	{"title": "A rule in plain language", "prompt": "Never give medical advice"},
	{"title": "Turn a policy off", "prompt": `Disable the policy "Block PII"`},
}

// Errors of the assistant the API tells apart.
var (
	ErrDecided     error = &fault.BadRequest{Err: errors.New("this plan was already accepted or declined")}
	ErrEmptyPlan   error = &fault.BadRequest{Err: errors.New("the plan has no actions to apply")}
	ErrInputLength error = &fault.BadRequest{Err: errors.New("user_input must be 1 to 4000 characters")}
)

var (
	reQuoted  = regexp.MustCompile("\"([^\"]{1,200})\"|“([^”]{1,200})”|`([^`]{1,200})`")
	reUUID    = regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	reNever   = regexp.MustCompile(`(?i)\b(never|do not|don't|must not|should not|no)\b`)
	reWordSep = regexp.MustCompile(`[^a-z0-9]+`)
)

func quoted(s string) []string {
	var out []string
	for _, m := range reQuoted.FindAllStringSubmatch(s, 50) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func hasAny(lower string, words ...string) bool {
	padded := " " + reWordSep.ReplaceAllString(lower, " ") + " "
	for _, w := range words {
		if strings.Contains(padded, " "+w+" ") {
			return true
		}
	}
	return false
}

// plan reads a request into actions.
func (s *Service) plan(ctx context.Context, accountID, input string) (string, []Action, error) {
	lower := strings.ToLower(input)
	terms := quoted(input)
	switch {
	case hasAny(lower, "disable", "deactivate", "pause") || strings.Contains(lower, "turn off"):
		return s.planExisting(ctx, accountID, "disable", terms, lower)
	case hasAny(lower, "enable", "activate", "reactivate") || strings.Contains(lower, "turn on"):
		return s.planExisting(ctx, accountID, "enable", terms, lower)
	case hasAny(lower, "delete", "remove"):
		return s.planExisting(ctx, accountID, "delete", terms, lower)
	}
	action := ActionFlag
	if hasAny(lower, "block", "blocks", "reject", "prevent", "stop", "forbid", "deny", "never") {
		action = ActionBlock
	}
	var stages []string
	in := hasAny(lower, "input", "inputs", "incoming", "request", "requests")
	out := hasAny(lower, "output", "outputs", "response", "responses", "answer", "answers", "reply", "replies")
	if in && !out {
		stages = []string{StageInput}
	} else if out && !in {
		stages = []string{StageOutput}
	}
	agentID := ""
	if id := reUUID.FindString(input); id != "" {
		if ok, err := s.Agents.AgentExists(ctx, accountID, strings.ToLower(id)); err != nil {
			return "", nil, err
		} else if ok {
			agentID = strings.ToLower(id)
		}
	}
	var kinds []string
	if hasAny(lower, "pii", "personal") {
		kinds = slices.Clone(PIIKinds)
	}
	for kind, words := range map[string][]string{
		"email": {"email", "emails", "e mail", "e mails", "mail address", "mail addresses"},
		"phone": {"phone", "phones", "telephone", "mobile"},
		"card":  {"card", "cards", "credit", "payment"},
		"national_id": {"ssn", "ssns", "social security", "national id", "national ids", "national insurance",
			"national identification"},
	} {
		if hasAny(lower, words...) && !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
	}
	slices.SortFunc(kinds, func(a, b string) int { return slices.Index(PIIKinds, a) - slices.Index(PIIKinds, b) })
	verb := map[string]string{ActionBlock: "Block", ActionFlag: "Flag"}[action]
	var actions []Action
	add := func(name, desc string, rules []map[string]any) {
		cfg := map[string]any{"action": action, "rules": rules}
		if stages != nil {
			cfg["stages"] = stages
		}
		params := map[string]any{"name": name, "enabled": true, "config": cfg}
		if agentID != "" {
			params["agent_id"] = agentID
			desc += " for agent " + agentID
		} else {
			desc += " for every agent"
		}
		actions = append(actions, Action{Type: "create", Description: desc, Params: params})
	}
	where := "run input and step output"
	if len(stages) == 1 {
		where = map[string]string{StageInput: "run input", StageOutput: "step output"}[stages[0]]
	}
	if len(kinds) > 0 {
		add(fmt.Sprintf("%s personal data (%s)", verb, strings.Join(kinds, ", ")),
			fmt.Sprintf("Create a policy that %ss %s in %s", strings.ToLower(verb), strings.Join(kinds, ", "), where),
			[]map[string]any{{"type": RulePII, "kinds": kinds}})
	}
	if hasAny(lower, "secret", "secrets", "credential", "credentials", "token", "tokens", "password", "passwords") || strings.Contains(lower, "api key") {
		add(verb+" secrets", fmt.Sprintf("Create a policy that %ss API keys, tokens and private keys in %s", strings.ToLower(verb), where),
			[]map[string]any{{"type": RuleSecrets}})
	}
	if len(terms) > 0 {
		add(fmt.Sprintf("%s terms: %s", verb, strings.Join(terms, ", ")),
			fmt.Sprintf("Create a policy that %ss the terms %s in %s", strings.ToLower(verb), strings.Join(quoteAll(terms), ", "), where),
			[]map[string]any{{"type": RuleBlockedTerms, "terms": terms}})
	}
	if len(actions) == 0 && reNever.MatchString(input) {
		rule := strings.TrimSpace(input)
		add(clip(verb+": "+rule), fmt.Sprintf("Create a policy that %ss %s breaking the rule %q, judged by a model", strings.ToLower(verb), where, clip(rule)),
			[]map[string]any{{"type": RuleLLM, "rule": rule}})
	}
	if len(actions) == 0 {
		return "I could not find a policy change in this request. Name what to block or flag (personal data such as e-mail addresses, phone numbers, card numbers or national ids; secrets; quoted terms), a rule starting with \"never\", or a policy to enable, disable or delete.", nil, nil
	}
	return fmt.Sprintf("Proposed %d change(s). Accept to apply them in order, or decline to change nothing.", len(actions)), actions, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// planExisting proposes enabling, disabling or deleting policies named in
// quotes, or all of the account's when the request says "all".
func (s *Service) planExisting(ctx context.Context, accountID, verb string, names []string, lower string) (string, []Action, error) {
	ps, _, err := s.repo.policies(ctx, accountID, "", 0, 1000)
	if err != nil {
		return "", nil, err
	}
	all := hasAny(lower, "all", "every")
	var actions []Action
	var missing []string
	for _, n := range names {
		found := false
		for _, p := range ps {
			if strings.EqualFold(p.Name, n) {
				found = true
				actions = append(actions, Action{Type: verb, Description: fmt.Sprintf("%s the policy %q", titleCase(verb), p.Name),
					Params: map[string]any{"policy_id": p.ID, "name": p.Name}})
			}
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%q", n))
		}
	}
	if len(names) == 0 && all {
		for _, p := range ps {
			actions = append(actions, Action{Type: verb, Description: fmt.Sprintf("%s the policy %q", titleCase(verb), p.Name),
				Params: map[string]any{"policy_id": p.ID, "name": p.Name}})
		}
	}
	note := fmt.Sprintf("Proposed %d change(s). Accept to apply them in order, or decline to change nothing.", len(actions))
	if len(missing) > 0 {
		note += " No policy is named " + strings.Join(missing, ", ") + "."
	}
	if len(actions) == 0 && len(names) == 0 {
		note = fmt.Sprintf("Name the policy to %s in quotes (or say \"all policies\").", verb)
	}
	return note, actions, nil
}

func titleCase(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Propose plans a request and stores the conversation.
func (s *Service) Propose(ctx context.Context, accountID, userID, input string) (Plan, error) {
	if n := len(strings.TrimSpace(input)); n == 0 || len(input) > 4000 {
		return Plan{}, ErrInputLength
	}
	note, actions, err := s.plan(ctx, accountID, input)
	if err != nil {
		return Plan{}, err
	}
	if actions == nil {
		actions = []Action{}
	}
	b, _ := json.Marshal(map[string]any{"actions": actions})
	c, err := s.repo.createConversation(ctx, GovernanceConversation{AccountID: accountID, UserID: userID,
		UserInput: input, AIResponse: &note, ProposedActions: b})
	if err != nil {
		return Plan{}, err
	}
	return Plan{Conversation: c, Note: note, Actions: actions}, nil
}

// Conversations lists the account's latest conversations.
func (s *Service) Conversations(ctx context.Context, accountID string, limit int) ([]GovernanceConversation, error) {
	return s.repo.conversations(ctx, accountID, limit)
}

func actionsOf(c GovernanceConversation) []Action {
	var v struct {
		Actions []Action `json:"actions"`
	}
	_ = json.Unmarshal(c.ProposedActions, &v)
	return v.Actions
}

// Accept applies a pending plan's actions in order and reports each.
func (s *Service) Accept(ctx context.Context, accountID, conversationID string) ([]Applied, error) {
	c, err := s.repo.conversationByID(ctx, accountID, conversationID)
	if err != nil {
		return nil, err
	}
	if c.Accepted != nil {
		return nil, ErrDecided
	}
	actions := actionsOf(c)
	if len(actions) == 0 {
		return nil, ErrEmptyPlan
	}
	// Claim the conversation first, so two accepts never apply it twice.
	if err := s.repo.decideConversation(ctx, accountID, conversationID, true); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, ErrDecided
		}
		return nil, err
	}
	out := make([]Applied, 0, len(actions))
	for _, a := range actions {
		r := Applied{Type: a.Type, Description: a.Description}
		id, err := s.applyAction(ctx, accountID, a)
		if id != "" {
			r.PolicyID = &id
		}
		if err != nil {
			msg := err.Error()
			r.Error = &msg
		} else {
			r.Success = true
		}
		out = append(out, r)
	}
	b, _ := json.Marshal(out)
	if err := s.repo.setConversationResults(context.WithoutCancel(ctx), accountID, conversationID, b); err != nil {
		return out, err
	}
	return out, nil
}

func (s *Service) applyAction(ctx context.Context, accountID string, a Action) (string, error) {
	str := func(k string) string { v, _ := a.Params[k].(string); return v }
	switch a.Type {
	case "create":
		cfg, _ := json.Marshal(a.Params["config"])
		name := str("name")
		in := PolicyInput{Name: &name, Config: cfg}
		if id := str("agent_id"); id != "" {
			in.AgentID = &id
		}
		p, err := s.CreatePolicy(ctx, accountID, in)
		return p.ID, err
	case "enable", "disable":
		on := a.Type == "enable"
		p, err := s.UpdatePolicy(ctx, accountID, str("policy_id"), PolicyInput{Enabled: &on})
		return p.ID, err
	case "delete":
		id := str("policy_id")
		return id, s.DeletePolicy(ctx, accountID, id)
	}
	return "", fmt.Errorf("unknown action %q", a.Type)
}

// Decline marks a pending plan declined; nothing changes.
func (s *Service) Decline(ctx context.Context, accountID, conversationID string) error {
	err := s.repo.decideConversation(ctx, accountID, conversationID, false)
	if errors.Is(err, store.ErrConflict) {
		return ErrDecided
	}
	return err
}
