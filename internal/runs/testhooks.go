package runs

import "context"

// Review reads one review of an account's run (store.ErrNotFound
// otherwise). Only tests outside this package call it (they cannot use an
// export_test.go): the isolation suite checks that another tenant's
// decision left a review undecided.
func (s *Service) Review(ctx context.Context, accountID, runID, key string) (Review, error) {
	return s.reviews.review(ctx, accountID, runID, key)
}
