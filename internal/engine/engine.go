// Package engine is the workflow interpreter: it walks an agent definition's
// step tree for one run, renders templates, runs each step through the
// handler registered for its type, and records every step result in the
// run's journal before the next step begins, so a run interrupted anywhere
// resumes from its last completed step. The engine knows step types only
// through the registry: each area registers its own (retrieval in
// knowledge, memory steps in memory, send_email in mail).
package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/outbound"
)

// Handler runs steps of one type.
type Handler interface {
	Execute(ctx context.Context, x *Exec) (Result, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, x *Exec) (Result, error)

// Execute calls f.
func (f HandlerFunc) Execute(ctx context.Context, x *Exec) (Result, error) { return f(ctx, x) }

// Result is what a step produced.
type Result struct {
	Output      string
	ContentType string // "" means text/plain
	Credits     float64
	ToolCalls   []ToolCall
	// Stop ends this branch quietly: a closed gate, a rejected review.
	Stop bool
	// Final marks an output step (display_result, streaming_result, join):
	// the run's output is the last final output, in tree order.
	Final bool
	// SkipChildren: the handler ran the step's continuation itself.
	SkipChildren bool
}

// ToolCall is one tool invocation of a prompt_call step, recorded in the
// shape runs report it (AgentRunToolCallResponse).
type ToolCall struct {
	ID              string   `json:"id"`
	Name            string   `json:"function_name"`
	Arguments       string   `json:"input"`
	Result          string   `json:"output"`
	Error           *string  `json:"error"`
	Succeeded       bool     `json:"succeeded"`
	RoundIndex      int      `json:"round_index"`
	Sequence        int      `json:"sequence"`
	StartedAt       string   `json:"started_at"`
	EndedAt         string   `json:"ended_at"`
	DurationSeconds *float64 `json:"duration_seconds"`
	CreditsUsed     float64  `json:"credits_used"`
}

// Registry maps step types to handlers.
type Registry struct {
	mu sync.RWMutex
	m  map[definition.StepType]Handler
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[definition.StepType]Handler{}} }

// Register adds or replaces the handler of a step type.
func (r *Registry) Register(t definition.StepType, h Handler) {
	r.mu.Lock()
	r.m[t] = h
	r.mu.Unlock()
}

// Handler returns the handler of t.
func (r *Registry) Handler(t definition.StepType) (Handler, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	h, ok := r.m[t]
	return h, ok
}

// Missing lists the step types of def that no area has registered, so a run
// can be refused before it starts rather than fail half-way.
func (r *Registry) Missing(def *definition.Definition) []string {
	seen := map[string]bool{}
	for _, s := range def.AllSteps() {
		if _, ok := r.Handler(s.Type); !ok {
			seen[string(s.Type)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Attachment is an uploaded file a run carries.
type Attachment struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Text        string `json:"text,omitempty"`
}

// Run is what the engine needs to know about the run it executes.
type Run struct {
	ID          string
	AccountID   string
	AgentID     string
	Input       string
	Metadata    map[string]any
	Attachments []Attachment
	Trigger     definition.TriggerType
	// Priority runs stream tokens of streaming_result steps.
	Priority bool
	// CallChain lists the agents above this run (call_agent), outermost
	// first, for depth limits and cycle detection.
	CallChain []string
	// OversightRev names the state of what oversees the agent (its
	// settings, evaluation criteria and governance policies) as read with
	// the agent at the run's start: overseers may reuse what they loaded
	// for the same value. Empty when unknown: load afresh.
	OversightRev string
	// StepInputs replace the input of the steps they name (by step key):
	// a rerun's changed input for the step it runs again from.
	StepInputs map[string]string
	// Regression marks the replay of a regression run: steps with effects
	// on the world that it must not have (send_email) leave them out.
	Regression bool
}

// StepRecord is one attempt of one step, as journaled.
type StepRecord struct {
	// ID is the attempt's journal id, chosen by the engine so overseers
	// can name the attempt they judged.
	ID          string
	Key         string // step id, qualified by for_each item when inside a body
	StepID      string
	StepType    string
	Status      string // processing, completed, failed
	Input       string
	Output      string
	ContentType string
	StartedAt   time.Time
	EndedAt     time.Time
	Credits     float64
	// Model is the model the attempt called ("" when none); InputTokens
	// and OutputTokens what its calls used together.
	Model                     string
	InputTokens, OutputTokens int
	ToolCalls                 []ToolCall
	Error                     string
	Attempt                   int
	Stopped                   bool // completed, and ended its branch (gate closed)
	Final                     bool
	// Judgments are what overseers judged of the attempt (a JSON array,
	// see Verdict.Judgments), journaled with it; nil: none.
	Judgments json.RawMessage
}

// Step statuses.
const (
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// Event is a run event the engine emits (step progress, stream tokens).
type Event struct {
	Type string
	Data map[string]any
}

// Journal is where a run's progress lives. The runs area implements it on
// the store. StepFinished must be durable when it returns: the engine moves
// on only after it does. StepStarted and StepFinished also announce the
// step's progress as run events (step_started, step_completed,
// step_failed), in the same write, so the record and its event never
// disagree and cost one commit.
type Journal interface {
	// Completed returns the latest completed attempt of every step key that
	// is still valid (not superseded by a retry), for resuming.
	Completed(ctx context.Context) (map[string]StepRecord, error)
	StepStarted(ctx context.Context, rec StepRecord) error
	StepFinished(ctx context.Context, rec StepRecord) error
	// Supersede invalidates completed attempts of keys, which a retry runs again.
	Supersede(ctx context.Context, keys []string) error
	Emit(ctx context.Context, evs ...Event) error
}

// Host provides what steps need from the rest of the platform.
type Host interface {
	// Model returns the metered provider charging this run's account.
	Model() llm.Provider
	// DefaultModel is the model used when a step names none.
	DefaultModel() string
	// Price returns the credits of a call's usage.
	Price(model string, u llm.Usage) float64
	// CallAgent runs another agent of the account as a sub-run and returns
	// its output (or, when wait is false, starts it and returns "").
	CallAgent(ctx context.Context, parent *Run, agentID, input string, wait bool) (string, error)
	// AwaitHuman asks for a decision on content. It returns ErrParked when
	// none has been made yet; the run then waits and is resumed later.
	AwaitHuman(ctx context.Context, run *Run, stepKey, instructions, content string, cfg map[string]any) (approved bool, edited string, err error)
	// Secret returns the run's account secret name, for a step that signs
	// or authenticates with it, with the hosts it may be sent to. The value
	// must never reach a step's output, an event, a log line or an error
	// message, and every request carrying it (or a signature made with it)
	// must go through outbound.GuardSecrets with its Binding.
	Secret(ctx context.Context, name string) (Secret, error)
}

// Secret is an opened account secret and the hosts its writer bound it to.
type Secret struct {
	Name, Value string
	Hosts       []string
}

// Binding is the secret as outbound.GuardSecrets checks it.
func (s Secret) Binding() outbound.SecretBinding {
	return outbound.SecretBinding{Name: s.Name, Hosts: s.Hosts}
}

// Errors the runs area tells apart.
var (
	// ErrParked means the run waits for something outside it (a human).
	ErrParked = errors.New("run is waiting")
	// ErrMissingReference is a template naming something that does not exist.
	ErrMissingReference = errors.New("missing template reference")
)

// StepError is a step's failure, naming the step.
type StepError struct {
	StepID   string
	StepType string
	Err      error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("step %s (%s): %v", e.StepID, e.StepType, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// Engine executes definitions.
type Engine struct {
	Registry *Registry
	// Tools are the functions prompt_call steps may offer their model.
	Tools *Tools
	// stepAttempts bounds attempts of a step failing with a transient error.
	stepAttempts int
	// backoff is the wait before the second attempt; it doubles after.
	backoff time.Duration
	// maxCallDepth bounds nested call_agent runs.
	maxCallDepth int
	// tokenFlush bounds how long stream tokens are held to be journaled together.
	tokenFlush time.Duration
	// These settings too are fixed by New: the outbound client is built
	// once from the webhook policy, so a policy changed after the first
	// request would silently not apply.
	webhooks         webhookPolicy
	limits           Limits
	s3AllowedBuckets []string
	// overseers watch runs' input and steps' output (governance,
	// evaluations; see oversight.go), added by their areas (AddOverseers).
	overseers []Overseer
}

// Config is what the server decides for every run; zero fields take the
// defaults.
type Config struct {
	// AllowPrivateWebhooks lets steps' outbound requests reach private,
	// loopback and link-local addresses (tests, trusted networks).
	AllowPrivateWebhooks bool
	// Limits bound each run's output and steps.
	Limits Limits
	// S3AllowedBuckets are the only buckets write_aws_s3_object may write
	// with the server's own credentials; every other write signs with the
	// account's secrets.
	S3AllowedBuckets []string
	// StepAttempts bounds the attempts of a step failing with a transient
	// error (default 3); Backoff is the wait before the second, doubling
	// after (default 200 ms).
	StepAttempts int
	Backoff      time.Duration
	// MaxCallDepth bounds nested call_agent runs (default 5).
	MaxCallDepth int
	// TokenFlush bounds how long stream tokens are held to be journaled
	// together (default 15 ms).
	TokenFlush time.Duration
}

// New returns an engine with cfg and the built-in step types and tools
// registered; areas register their own step types, tools and overseers
// on it before the first run.
func New(cfg Config) *Engine {
	e := &Engine{Registry: NewRegistry(), Tools: NewTools(),
		stepAttempts: cmp.Or(cfg.StepAttempts, 3), backoff: cmp.Or(cfg.Backoff, 200*time.Millisecond),
		maxCallDepth: cmp.Or(cfg.MaxCallDepth, 5), tokenFlush: cmp.Or(cfg.TokenFlush, 15*time.Millisecond),
		webhooks: webhookPolicy{allowPrivate: cfg.AllowPrivateWebhooks}, limits: cfg.Limits.withDefaults(),
		s3AllowedBuckets: slices.Clone(cfg.S3AllowedBuckets)}
	registerBuiltins(e)
	return e
}

// Limits are the bounds every run gets, defaults filled in.
func (e *Engine) Limits() Limits { return e.limits }

// WebhookClient is the guarded HTTP client of steps, for other areas'
// outbound requests (alert webhooks, MCP servers) that must obey the same
// rules.
func (e *Engine) WebhookClient() *http.Client { return e.webhooks.client() }

// AddOverseers adds watchers of every run's input and steps' output.
func (e *Engine) AddOverseers(o ...Overseer) { e.overseers = append(e.overseers, o...) }

// Outcome is a finished execution.
type Outcome struct {
	Output      string
	ContentType string
	Credits     float64 // of the steps run in this execution
	ErrorCount  int
}

// Execute runs def for run, resuming past the steps the journal shows
// completed. It returns ErrParked (wrapped) when the run must wait.
func (e *Engine) Execute(ctx context.Context, def *definition.Definition, run *Run, j Journal, h Host) (Outcome, error) {
	if missing := e.Registry.Missing(def); len(missing) > 0 {
		return Outcome{}, fmt.Errorf("step types not available on this server: %s", strings.Join(missing, ", "))
	}
	done, err := j.Completed(ctx)
	if err != nil {
		return Outcome{}, err
	}
	x := &execution{e: e, def: def, run: run, journal: j, host: h, done: done,
		outputs: map[string]stepIO{}, retries: map[string]int{}, parents: parentIndex(def),
		budget: &runBudget{limits: e.limits}}
	if x.watch, err = e.watchers(ctx, run); err != nil {
		return Outcome{}, err
	}
	if len(done) == 0 {
		// A fresh run: its input is checked once, before any step.
		for _, w := range x.watch {
			if err := w.CheckInput(ctx, run.Input); err != nil {
				return Outcome{}, err
			}
		}
	}
	for _, rec := range done {
		x.outputs[rec.Key] = stepIO{input: rec.Input, output: rec.Output}
		// A resumed run's earlier outputs count toward its total; its
		// earlier steps are counted again as the walk passes them.
		x.budget.outputBytes.Add(int64(len(rec.Output)))
	}
	res, err := x.runList(ctx, def.Steps, run.Input, "")
	out := Outcome{Credits: x.credits, ErrorCount: x.errors}
	if err != nil {
		return out, err
	}
	out.Output, out.ContentType = res.output, res.contentType
	if x.final != nil {
		out.Output, out.ContentType = x.final.output, x.final.contentType
	}
	if out.ContentType == "" {
		out.ContentType = "text/plain"
	}
	return out, nil
}
