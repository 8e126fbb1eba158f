package sending

import "context"

// AddOptOut records an opt-out directly, as a one-click unsubscribe
// would. Only tests outside this package call it (they cannot use an
// export_test.go): the suites that seed an account's opt-outs.
func (s *Service) AddOptOut(ctx context.Context, o OptOut) (OptOut, error) {
	return s.repo.addOptOut(ctx, o)
}

// MessageForStep answers the message a run's step queued, or
// store.ErrNotFound. Only tests outside this package call it.
func (s *Service) MessageForStep(ctx context.Context, accountID, runID, stepKey string) (Message, []Delivery, error) {
	return s.repo.messageForStep(ctx, accountID, runID, stepKey)
}
