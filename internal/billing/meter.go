// Package billing owns what model calls cost an account: Metered wraps a
// provider so every call is priced at the catalog's rates, and Meter
// implements the model layer's llm.Meter on the credit ledger, so that every
// metered call is refused before it is made when the balance cannot cover
// its estimate, and recorded with its usage and charged in one transaction
// after. Credits keeps the ledger and the usage log, and moves the balance
// on the account's row through the accounts area (directory). What other
// areas need of the ledger (an account's opening balance, the alerts'
// spending) is in its leaf package, ledgerrow.
package billing

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/store"
)

// Meter is llm.Meter on the ledger (Credits). Credits are the catalog's unit.
type Meter struct{ DB *store.DB }

var _ llm.Meter = Meter{}

// Authorize refuses a call whose estimate the balance does not cover.
func (m Meter) Authorize(ctx context.Context, accountID string, estimated int64) error {
	bal, err := NewCredits(m.DB).Balance(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("account %s: %w", accountID, llm.ErrInsufficientCredits)
	}
	if err != nil {
		return err
	}
	if bal <= 0 || bal < float64(estimated) {
		return fmt.Errorf("account %s has %.0f credits, the call may need %d: %w", accountID, bal, estimated, llm.ErrInsufficientCredits)
	}
	return nil
}

// Record stores the call and charges it.
func (m Meter) Record(ctx context.Context, rec llm.UsageRecord) error {
	_, _, err := NewCredits(m.DB).RecordUsage(ctx, Usage{
		AccountID: rec.AccountID, Purpose: rec.Purpose, Model: rec.Model,
		InputTokens: int64(rec.InputTokens), OutputTokens: int64(rec.OutputTokens), CachedTokens: int64(rec.CachedInputTokens),
		Credits: float64(rec.Credits), Latency: rec.Latency, RunID: rec.RunID, StepID: rec.StepID, ExperimentID: rec.ExperimentID,
	})
	return err
}
