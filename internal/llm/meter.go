package llm

import (
	"context"
	"time"
)

// Meter is the credit ledger as the model layer sees it. Authorize refuses
// (with an error wrapping ErrInsufficientCredits) when the account cannot
// cover the estimate; Record debits what a finished call cost. The wrapper
// that prices calls and drives a Meter is billing.Metered.
type Meter interface {
	Authorize(ctx context.Context, accountID string, estimatedCredits int64) error
	Record(ctx context.Context, rec UsageRecord) error
}

// UsageRecord is one metered model call.
type UsageRecord struct {
	AccountID         string        `json:"account_id"`
	Purpose           string        `json:"purpose"`
	Model             string        `json:"model"` // catalog id
	Kind              string        `json:"kind"`  // catalog kind: chat or embedding
	InputTokens       int           `json:"input_tokens"`
	OutputTokens      int           `json:"output_tokens"`
	CachedInputTokens int           `json:"cached_input_tokens"`
	CacheWriteTokens  int           `json:"cache_write_tokens"`
	Credits           int64         `json:"credits"`       // debited, rounded up
	ExactCredits      float64       `json:"exact_credits"` // before rounding
	Latency           time.Duration `json:"latency"`
	RunID             string        `json:"run_id,omitempty"`
	StepID            string        `json:"step_id,omitempty"`
	ExperimentID      string        `json:"experiment_id,omitempty"`
	// Partial marks a stream that failed after delivering output; its
	// usage is estimated from what was delivered, since providers bill it.
	Partial bool      `json:"partial,omitempty"`
	At      time.Time `json:"at"`
}
