package store

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
)

// DefaultOpeningCredits is the balance new accounts open with unless the
// operator sets another (SERVICE_DEFAULT_CREDITS): 5,000,000 credits, which
// at the catalog's rate of one credit per US$0.000001 is US$5 — enough for
// hundreds of short runs on a hosted model, so a first try does not end in
// a 402.
const DefaultOpeningCredits = 5_000_000

// InsufficientCreditsError is a refusal made before any work: the account's
// balance does not cover what the request was estimated to cost up front.
// It is the fault vocabulary's NoCredits, so it matches ErrInsufficientCredits.
type InsufficientCreditsError = fault.NoCredits

// RequireCredits returns nil when the account's balance is positive and
// covers estimate, else an *InsufficientCreditsError that says both.
func (db *DB) RequireCredits(ctx context.Context, accountID string, estimate float64) error {
	bal, err := db.Balance(ctx, accountID)
	if err != nil {
		return err
	}
	if bal >= estimate && bal > 0 {
		return nil
	}
	return &InsufficientCreditsError{AccountID: accountID, Estimate: estimate, Balance: bal}
}
