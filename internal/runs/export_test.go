package runs

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/engine"
)

// SetBeforeParkHook makes the worker call f as a run is about to park on
// an undecided review, so tests can land a decision in that window.
func SetBeforeParkHook(s *Service, f func(runID, stepKey string)) { s.beforePark.Store(&f) }

// SetBeforeEnqueueHook makes Start call f within the transaction recording
// a run, just before its job is inserted; an error from f fails it there.
func SetBeforeEnqueueHook(s *Service, f func(runID string) error) { s.beforeEnqueue.Store(&f) }

// NewJournal returns the journal a worker keeps for run r.
func NewJournal(s *Service, r Run) engine.Journal {
	return &journal{db: s.DB, repo: s.Repo, bus: s.Bus, run: r}
}

// RequestReview records a review request as a human_in_the_loop step does.
func RequestReview(ctx context.Context, s *Service, r Review) (Review, error) {
	return s.reviews.request(ctx, r)
}

// DueScheduleIDs lists the ids of the schedules due at now, as FireDue
// reads them.
func DueScheduleIDs(ctx context.Context, s *Service, now time.Time) ([]string, error) {
	due, err := scheduleRepo{s.DB}.due(ctx, now, 10)
	ids := make([]string, len(due))
	for i, d := range due {
		ids[i] = d.ID
	}
	return ids, err
}
