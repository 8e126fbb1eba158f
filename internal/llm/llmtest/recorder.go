// Package llmtest holds test doubles of the model layer shared by the
// packages that wrap a Provider (billing's metering, the router).
package llmtest

import (
	"context"
	"sync"

	"github.com/agentry/agentry/internal/llm"
)

// Recorder is a Provider that records the model names it was asked for and
// answers with Name as its text and fixed Usage; Deltas are streamed first,
// and Err, when set, fails every chat.
type Recorder struct {
	Name   string
	Usage  llm.Usage
	Err    error
	Deltas []llm.Delta

	mu     sync.Mutex
	models []string
}

// Models returns the model names asked for, in order.
func (r *Recorder) Models() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.models...)
}

func (r *Recorder) note(model string) {
	r.mu.Lock()
	r.models = append(r.models, model)
	r.mu.Unlock()
}

// Chat implements llm.Provider.
func (r *Recorder) Chat(_ context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	r.note(req.Model)
	if r.Err != nil {
		return nil, r.Err
	}
	return &llm.ChatResponse{Model: req.Model, Message: llm.Assistant(r.Name), Usage: r.Usage, FinishReason: llm.FinishStop}, nil
}

// Stream implements llm.Provider.
func (r *Recorder) Stream(ctx context.Context, req llm.ChatRequest, fn llm.StreamFunc) (*llm.ChatResponse, error) {
	for _, d := range r.Deltas {
		if err := fn(d); err != nil {
			return nil, err
		}
	}
	return r.Chat(ctx, req)
}

// Embed implements llm.Provider: zero vectors of the asked dimensions.
func (r *Recorder) Embed(_ context.Context, req llm.EmbedRequest) (*llm.EmbedResponse, error) {
	r.note(req.Model)
	vs := make([][]float32, len(req.Input))
	for i := range vs {
		vs[i] = make([]float32, req.Dimensions)
	}
	return &llm.EmbedResponse{Model: req.Model, Vectors: vs, Usage: r.Usage}, nil
}
