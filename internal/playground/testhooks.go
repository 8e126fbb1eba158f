package playground

import "context"

// Only tests outside this package call these (they cannot use an
// export_test.go): the isolation and conformance suites, which need an
// experiment that stays pending for a cancel or delete to find, and the
// API's, which checks a deleted experiment is kept for audit.

// StorePending stores an experiment in status pending without a job.
func (s *Service) StorePending(ctx context.Context, e Experiment) (Experiment, error) {
	return s.repo.create(ctx, e)
}

// Stored reads an experiment by id alone, deleted or not.
func (s *Service) Stored(ctx context.Context, id string) (Experiment, error) {
	return s.repo.forWorker(ctx, id)
}
