package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/telemetry"
)

// ErrNoAccount: a metered call did not say who pays.
var ErrNoAccount = errors.New("metered model call without account id")

// RecordError wraps a failure to record a call that did succeed: the
// response returned alongside it is valid, and the caller should keep it
// and report the ledger problem.
type RecordError struct{ Err error }

func (e *RecordError) Error() string { return "recording model usage: " + e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

// DefaultOutputEstimate is the output size assumed for authorisation when
// a request sets no MaxTokens.
const DefaultOutputEstimate = 1024

// Metered wraps a llm.Provider (normally the Router) so that every call is
// authorised before it is made and recorded after, at catalog prices.
type Metered struct {
	next  llm.Provider
	meter llm.Meter
	cat   *catalog.Catalog
	now   func() time.Time
}

// NewMetered returns next metered by meter at the prices in cat.
func NewMetered(next llm.Provider, meter llm.Meter, cat *catalog.Catalog) *Metered {
	return &Metered{next: next, meter: meter, cat: cat, now: time.Now}
}

// EstimateChatCredits is what Metered authorises for req: the estimated
// prompt plus MaxTokens (or DefaultOutputEstimate) of output, capped by
// the model's output limit.
func EstimateChatCredits(cat *catalog.Catalog, model string, req llm.ChatRequest) (int64, error) {
	m, ok := cat.Get(model)
	if !ok {
		return 0, fmt.Errorf("%w: %q", llm.ErrUnknownModel, model)
	}
	out := req.MaxTokens
	if out <= 0 {
		out = DefaultOutputEstimate
	}
	if m.MaxOutputTokens > 0 {
		out = min(out, m.MaxOutputTokens)
	}
	c, err := m.Cost(catalog.TokenUsage{Input: llm.EstimateRequestTokens(req), Output: out})
	return c.Credits, err
}

func (mt *Metered) modelID(model string, kind catalog.Kind) string {
	if model != "" {
		if m, ok := mt.cat.Get(model); ok {
			return m.ID
		}
		return model
	}
	if r, ok := mt.next.(*routing.Router); ok {
		return r.DefaultModel(kind)
	}
	if m, ok := mt.cat.Default(kind); ok {
		return m.ID
	}
	return ""
}

// resolver is what a Router offers to say, without calling anything,
// whether a model can be served.
type resolver interface {
	Resolve(modelID string, kind catalog.Kind) (routing.Resolution, error)
}

// routable checks that something serves model before the account is asked
// to pay for it: a model without a provider must fail as such, not as an
// estimate the balance cannot cover.
func (mt *Metered) routable(model string, kind catalog.Kind) error {
	r, ok := mt.next.(resolver)
	if !ok {
		return nil
	}
	_, err := r.Resolve(model, kind)
	return err
}

func (mt *Metered) authorize(ctx context.Context, meta llm.CallMeta, estimate int64) error {
	if meta.AccountID == "" {
		return ErrNoAccount
	}
	return mt.meter.Authorize(ctx, meta.AccountID, estimate)
}

func (mt *Metered) record(ctx context.Context, meta llm.CallMeta, model string, kind catalog.Kind, u llm.Usage, start time.Time, partial bool) (int64, error) {
	cost, err := mt.cat.Price(model, catalog.TokenUsage{Input: u.InputTokens, Output: u.OutputTokens,
		CachedInput: u.CachedInputTokens, CacheWrite: u.CacheWriteTokens})
	if err != nil {
		return 0, &RecordError{err}
	}
	end := mt.now()
	rec := llm.UsageRecord{AccountID: meta.AccountID, Purpose: meta.Purpose, Model: model, Kind: string(kind),
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedInputTokens: u.CachedInputTokens,
		CacheWriteTokens: u.CacheWriteTokens, Credits: cost.Credits, ExactCredits: cost.Exact,
		Latency: end.Sub(start), RunID: meta.RunID, StepID: meta.StepID, ExperimentID: meta.ExperimentID,
		Partial: partial, At: end.UTC()}
	// Recording must survive the caller giving up right after the call:
	// the tokens were spent either way.
	if err := mt.meter.Record(context.WithoutCancel(ctx), rec); err != nil {
		return cost.Credits, &RecordError{err}
	}
	return cost.Credits, nil
}

// admitChat resolves a chat request's catalog model and lets it through
// only when something serves that model and the account can pay the
// estimate (in that order, so a missing provider is not reported as a
// shortage of credits).
func (mt *Metered) admitChat(ctx context.Context, req llm.ChatRequest) (string, error) {
	model := mt.modelID(req.Model, catalog.KindChat)
	est, err := EstimateChatCredits(mt.cat, model, req)
	if err != nil {
		return "", err
	}
	if err := mt.routable(model, catalog.KindChat); err != nil {
		return "", err
	}
	return model, mt.authorize(ctx, req.Meta, est)
}

// Chat implements llm.Provider.
func (mt *Metered) Chat(ctx context.Context, req llm.ChatRequest) (resp *llm.ChatResponse, err error) {
	model, err := mt.admitChat(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx, span := telemetry.StartChat(ctx, model, mt.known(model), req, false)
	var credits int64
	defer func() { span.EndChat(resp, credits, err) }()
	start := mt.now()
	req.Model = model
	resp, err = mt.next.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	if credits, err = mt.record(ctx, req.Meta, model, catalog.KindChat, resp.Usage, start, false); err != nil {
		return resp, err
	}
	return resp, nil
}

// known reports whether model is a catalog model (a bounded metric label).
func (mt *Metered) known(model string) bool {
	_, ok := mt.cat.Get(model)
	return ok
}

// Stream implements llm.Provider. A stream that fails after delivering text is
// recorded as partial, with usage estimated from what was delivered.
func (mt *Metered) Stream(ctx context.Context, req llm.ChatRequest, fn llm.StreamFunc) (resp *llm.ChatResponse, err error) {
	model, err := mt.admitChat(ctx, req)
	if err != nil {
		return nil, err
	}
	ctx, span := telemetry.StartChat(ctx, model, mt.known(model), req, true)
	var credits int64
	defer func() { span.EndChat(resp, credits, err) }()
	start := mt.now()
	req.Model = model
	delivered := 0
	resp, err = mt.next.Stream(ctx, req, func(d llm.Delta) error {
		delivered += llm.EstimateTokens(d.Text) + llm.EstimateTokens(d.Reasoning)
		if d.ToolCall != nil {
			delivered += llm.EstimateTokens(d.ToolCall.ArgumentsDelta)
		}
		return fn(d)
	})
	if err != nil {
		if delivered > 0 {
			u := llm.Usage{InputTokens: llm.EstimateRequestTokens(req), OutputTokens: delivered}
			c, rerr := mt.record(ctx, req.Meta, model, catalog.KindChat, u, start, true)
			credits = c
			if rerr != nil {
				return nil, errors.Join(err, rerr)
			}
		}
		return nil, err
	}
	if credits, err = mt.record(ctx, req.Meta, model, catalog.KindChat, resp.Usage, start, false); err != nil {
		return resp, err
	}
	return resp, nil
}

// Embed implements llm.Provider.
func (mt *Metered) Embed(ctx context.Context, req llm.EmbedRequest) (resp *llm.EmbedResponse, err error) {
	model := mt.modelID(req.Model, catalog.KindEmbedding)
	n := 0
	for _, s := range req.Input {
		n += llm.EstimateTokens(s)
	}
	cost, err := mt.cat.Price(model, catalog.TokenUsage{Input: n})
	if err != nil {
		return nil, err
	}
	if err := mt.routable(model, catalog.KindEmbedding); err != nil {
		return nil, err
	}
	if err := mt.authorize(ctx, req.Meta, cost.Credits); err != nil {
		return nil, err
	}
	ctx, span := telemetry.StartEmbed(ctx, model, mt.known(model), req.Meta.Purpose, len(req.Input))
	var (
		u       llm.Usage
		credits int64
	)
	defer func() { span.EndEmbed(u, credits, err) }()
	start := mt.now()
	req.Model = model
	resp, err = mt.next.Embed(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.Usage.InputTokens == 0 {
		resp.Usage.InputTokens = n // some servers (Ollama) report no usage
	}
	u = resp.Usage
	if credits, err = mt.record(ctx, req.Meta, model, catalog.KindEmbedding, resp.Usage, start, false); err != nil {
		return resp, err
	}
	return resp, nil
}
