package store

import (
	"context"
	"fmt"
	"strconv"
)

// DefaultOpeningCredits is the balance new accounts open with unless the
// operator sets another (SERVICE_DEFAULT_CREDITS): 5,000,000 credits, which
// at the catalog's rate of one credit per US$0.000001 is US$5 — enough for
// hundreds of short runs on a hosted model, so a first try does not end in
// a 402.
const DefaultOpeningCredits = 5_000_000

// InsufficientCreditsError is a refusal made before any work: the account's
// balance does not cover what the request was estimated to cost up front.
// It wraps ErrInsufficientCredits.
type InsufficientCreditsError struct {
	AccountID string
	// Estimate is the up-front estimate in credits (0 when the request
	// only needs a positive balance, as a run start does).
	Estimate float64
	Balance  float64
}

func (e *InsufficientCreditsError) Error() string {
	if e.Estimate > 0 {
		return fmt.Sprintf("the request is estimated up front at %s credits and the account has %s",
			formatCredits(e.Estimate), formatCredits(e.Balance))
	}
	return fmt.Sprintf("the account has %s credits and needs a positive balance to start", formatCredits(e.Balance))
}

func (e *InsufficientCreditsError) Unwrap() error { return ErrInsufficientCredits }

func formatCredits(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }

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
