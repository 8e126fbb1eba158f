package evals

import "context"

// Only tests outside this package call what follows (they cannot use an
// export_test.go): the suites that seed criteria and results directly,
// without the checks and alerts of the service's own paths.

// StoreCriterion stores a criterion of one of the account's agents as
// given; store.ErrNotFound when the agent is not the account's.
func (s *Service) StoreCriterion(ctx context.Context, c EvaluationCriterion) (EvaluationCriterion, error) {
	return s.repo.createCriterion(ctx, c)
}

// StoredCriterion reads one criterion of the account as stored.
func (s *Service) StoredCriterion(ctx context.Context, accountID, id string) (EvaluationCriterion, error) {
	return s.repo.criterion(ctx, accountID, id)
}

// StoreResult stores a result as given (its id and times set when empty);
// store.ErrNotFound when the criterion is not the account's.
func (s *Service) StoreResult(ctx context.Context, r EvaluationResult) (EvaluationResult, error) {
	return s.repo.insertResult(ctx, r)
}
