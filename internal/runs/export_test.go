package runs

// SetBeforeParkHook makes the worker call f as a run is about to park on
// an undecided review, so tests can land a decision in that window.
func SetBeforeParkHook(s *Service, f func(runID, stepKey string)) { s.beforePark.Store(&f) }

// SetBeforeEnqueueHook makes Start call f within the transaction recording
// a run, just before its job is inserted; an error from f fails it there.
func SetBeforeEnqueueHook(s *Service, f func(runID string) error) { s.beforeEnqueue.Store(&f) }
