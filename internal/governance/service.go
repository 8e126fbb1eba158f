// Package governance owns governance policies: the rules (personal data,
// secrets, blocked terms and patterns, a plain-language rule judged by a
// model) that check runs' input and steps' output and flag or block them;
// the extension CRUD of policies, the governance assistant that turns a
// request in plain language into a plan of policy changes, and the engine
// overseer that applies policies to runs.
package governance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/oversight"
	"github.com/agentry/agentry/internal/revcache"
	"github.com/agentry/agentry/internal/store"
)

// Deps is what the governance service is built from (New).
type Deps struct {
	DB *store.DB
	// Agents tells whether an agent id is the account's, for the policy
	// assistant (governance → agents; the server supplies the agents'
	// repository).
	Agents Agents
	// Model judges plain-language rules, metered to the account.
	Model   llm.Provider
	Router  *routing.Router
	Catalog *catalog.Catalog
	// Alerts receives governance_flagged and governance_blocked (nil: none).
	Alerts oversight.Alerter
	// OutputBlocked, when set, hears every block of a step's output with
	// the run it stopped (the mail area's auto-block acts on it for runs
	// started by an e-mail). It runs on the run's path: it must be quick.
	OutputBlocked func(ctx context.Context, accountID string, runMetadata map[string]any, v Verdict)
	// Signals records a flag or block for the model rollback rules (the
	// model alerts area's RecordSignal; nil: none).
	Signals func(ctx context.Context, accountID, agentID string, signal lifecycle.Signal, at time.Time) error
	// RunInputs records on a run what its input check decided (the runs
	// area's repository; nil: nothing is recorded).
	RunInputs RunInputs
}

// RunInputs records what the governance input check decided for a run:
// safe, blocked or skipped. With redacted non-nil, a blocked run's stored
// input is replaced by it, so the matched data is kept nowhere.
type RunInputs interface {
	SetRunGovernanceInput(ctx context.Context, accountID, runID, status string, redacted *string) error
}

// Agents is what this area reads of the agents area: whether the account
// has a live agent by that id.
type Agents interface {
	AgentExists(ctx context.Context, accountID, agentID string) (bool, error)
}

// Service is the governance area.
type Service struct {
	Deps
	repo repo

	compiled  sync.Map     // policy id → compiledEntry
	nCompiled atomic.Int64 // entries in compiled, bounded by maxCompiled
	// watching holds the policies Watch loaded, by agent oversight
	// revision (see revcache): runs of an unchanged agent read none.
	watching revcache.Cache[[]*Policy]
}

// New builds the service from its dependencies.
func New(d Deps) *Service { return &Service{Deps: d, repo: repo{d.DB}} }

// maxCompiled bounds the compiled policies kept; past it they are all
// dropped and compiled again as runs need them.
const maxCompiled = 8192

type compiledEntry struct {
	updated time.Time
	p       *Policy
}

// Verdict is the outcome of a check: Action is "" (nothing found), "flag"
// or "block"; Rule names the rule that matched ("pii:email", "llm"…) and
// Reason says why, without quoting the matched text.
type Verdict struct {
	Action string
	Rule   string
	Reason string
	// PolicyID and PolicyName name the policy that decided.
	PolicyID   string
	PolicyName string
}

// Where a check happens, for records and model calls.
type where struct {
	accountID, agentID, runID, stepID string
}

// compile returns a stored policy compiled, cached until it changes.
func (s *Service) compile(p GovernancePolicy) (*Policy, error) {
	if e, ok := s.compiled.Load(p.ID); ok && e.(compiledEntry).updated.Equal(p.UpdatedAt) {
		return e.(compiledEntry).p, nil
	}
	typ := ""
	if p.PolicyType != nil {
		typ = *p.PolicyType
	}
	c, err := Parse(typ, p.Config)
	if err != nil {
		return nil, err
	}
	c.ID, c.Name, c.AgentID = p.ID, p.Name, p.AgentID
	if s.nCompiled.Add(1) > maxCompiled {
		s.compiled.Clear()
		s.nCompiled.Store(1)
	}
	s.compiled.Store(p.ID, compiledEntry{updated: p.UpdatedAt, p: c})
	return c, nil
}

// policiesFor compiles the enabled policies that govern an agent's runs.
// A stored policy that no longer compiles (written by an older version,
// or imported) is skipped with a warning rather than stopping every run.
func (s *Service) policiesFor(ctx context.Context, accountID, agentID string) ([]*Policy, error) {
	rows, err := s.repo.applicablePolicies(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	var out []*Policy
	for _, r := range rows {
		p, err := s.compile(r)
		if err != nil {
			slog.Warn("governance policy does not compile; skipped", "policy", r.ID, "err", err)
			continue
		}
		if len(p.Rules) > 0 {
			out = append(out, p)
		}
	}
	return out, nil
}

// Check checks text at a stage ("input" or "output") against the policies
// that govern the agent (account-wide ones only when agentID is empty). A
// block anywhere wins over flags. Check records nothing and raises no
// alert: callers that act on the verdict (mail auto-block) report it.
func (s *Service) Check(ctx context.Context, accountID, agentID, stage, text string) (Verdict, error) {
	if stage != StageInput && stage != StageOutput {
		return Verdict{}, fmt.Errorf("governance check: stage %q is not input or output", stage)
	}
	ps, err := s.policiesFor(ctx, accountID, agentID)
	if err != nil {
		return Verdict{}, err
	}
	v, _, err := s.evaluate(ctx, where{accountID: accountID, agentID: agentID}, ps, stage, text)
	return v, err
}

// evaluate runs policies over text: deterministic rules first (all
// policies), then plain-language rules, stopping at the first block. It
// returns the credits model judgments cost.
func (s *Service) evaluate(ctx context.Context, w where, ps []*Policy, stage, text string) (Verdict, float64, error) {
	var flag Verdict
	lower := strings.ToLower(text)
	for _, p := range ps {
		if !p.HasStage(stage) {
			continue
		}
		for i := range p.Rules {
			if f, ok := p.Rules[i].CheckDeterministic(text, lower); ok {
				v := verdictOf(p, f, stage)
				if v.Action == ActionBlock {
					return v, 0, nil
				}
				if flag.Action == "" {
					flag = v
				}
			}
		}
	}
	var credits float64
	for _, p := range ps {
		if !p.HasStage(stage) || !p.NeedsModel() || (flag.Action != "" && p.Action == ActionFlag) {
			continue
		}
		for _, r := range p.Rules {
			if r.Type != RuleLLM {
				continue
			}
			violates, reason, c, err := s.judgeRule(ctx, w, r.Text, text)
			credits += c
			if err != nil {
				if p.Action == ActionBlock {
					// A blocking rule that cannot be checked does not let
					// the text through.
					return Verdict{}, credits, fmt.Errorf("governance policy %q: its rule could not be checked: %w", p.Name, err)
				}
				slog.Warn("governance rule could not be checked", "policy", p.ID, "err", err)
				continue
			}
			if violates {
				// The model's reason may quote the text it judged: personal
				// data and secrets in it are replaced by their kind, as in
				// a blocked input, since the reason is stored and shown.
				v := verdictOf(p, Finding{Rule: RuleLLM, Reason: "breaks the rule " + fmt.Sprintf("%q", clip(r.Text)) + ": " + scrub(reason)}, stage)
				if v.Action == ActionBlock {
					return v, credits, nil
				}
				if flag.Action == "" {
					flag = v
				}
			}
		}
	}
	return flag, credits, nil
}

func verdictOf(p *Policy, f Finding, stage string) Verdict {
	what := "the run input"
	if stage == StageOutput {
		what = "the output"
	}
	return Verdict{Action: p.Action, Rule: f.Rule, PolicyID: p.ID, PolicyName: p.Name,
		Reason: fmt.Sprintf("governance policy %q: %s %s", p.Name, what, f.Reason)}
}

var ruleSchema = json.RawMessage(`{"type":"object","properties":{"violates":{"type":"boolean"},"reason":{"type":"string"}},"required":["violates","reason"],"additionalProperties":false}`)

// judgeRule asks a model whether text breaks a plain-language rule.
func (s *Service) judgeRule(ctx context.Context, w where, rule, text string) (bool, string, float64, error) {
	if s.Model == nil {
		return false, "", 0, errors.New("no model is configured to check plain-language rules")
	}
	model := oversight.JudgeModel(s.Router, "fast")
	req := llm.ChatRequest{Model: model, MaxTokens: 300,
		Messages: []llm.Message{
			llm.System("You enforce a governance policy. Decide whether the text breaks the rule. Judge only the text given; " +
				"answer with violates (true or false) and a one-sentence reason."),
			llm.User("Rule: " + rule + "\n\nText to check:\n" + text),
		},
		ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "policy_verdict", Schema: ruleSchema, Strict: true},
		Meta:           llm.CallMeta{AccountID: w.accountID, Purpose: "governance", RunID: w.runID, StepID: w.stepID},
	}
	resp, err := s.Model.Chat(ctx, req)
	if err != nil {
		return false, "", 0, err
	}
	credits := 0.0
	if s.Catalog != nil {
		if c, err := s.Catalog.Price(model, catalog.TokenUsage{Input: resp.Usage.InputTokens, Output: resp.Usage.OutputTokens}); err == nil {
			credits = float64(c.Credits)
		}
	}
	var out struct {
		Violates bool   `json:"violates"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(llm.StripCodeFence(resp.Text()))), &out); err != nil {
		return false, "", credits, fmt.Errorf("the model's verdict is not the JSON asked for: %v", err)
	}
	return out.Violates, clip(out.Reason), credits, nil
}

// report records a flag or block, tells the model lifecycle rules (a
// rollback trigger) and raises the alert.
func (s *Service) report(ctx context.Context, w where, stage string, v Verdict) {
	ctx = context.WithoutCancel(ctx)
	if err := s.RecordViolation(ctx, GovernanceViolation{AccountID: w.accountID, AgentID: w.agentID,
		RunID: w.runID, StepID: w.stepID, PolicyID: v.PolicyID, Stage: stage, Action: v.Action, Rule: v.Rule, Reason: v.Reason}); err != nil {
		slog.Warn("recording governance violation", "err", err)
	}
	signal, alert := lifecycle.SignalGovernanceFlag, oversight.AlertGovernanceFlagged
	if v.Action == ActionBlock {
		signal, alert = lifecycle.SignalGovernanceBlock, oversight.AlertGovernanceBlocked
	}
	if w.agentID != "" && s.Signals != nil {
		if err := s.Signals(ctx, w.accountID, w.agentID, signal, time.Now()); err != nil && !errors.Is(err, store.ErrNotFound) {
			slog.Warn("recording model signal", "err", err)
		}
	}
	oversight.Raise(ctx, s.Alerts, oversight.Signal{AccountID: w.accountID, Type: alert, AgentID: w.agentID, RunID: w.runID,
		Message: v.Reason, Details: map[string]any{"policy_id": v.PolicyID, "policy_name": v.PolicyName, "rule": v.Rule,
			"stage": stage, "step_id": w.stepID, "action": v.Action}})
}

// BlockedError is a run or step stopped by a policy.
type BlockedError struct{ Verdict Verdict }

func (e *BlockedError) Error() string { return "blocked by " + e.Verdict.Reason }
