package runs

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// Errors of review decisions the API maps to statuses.
var (
	// ErrReviewDecided: the review has its decision already (409).
	ErrReviewDecided error = &fault.Conflict{Err: fmt.Errorf("%w: the review has already been decided", store.ErrConflict)}
	// ErrReviewRunFinished: the run ended (cancelled, failed) before anyone decided (409).
	ErrReviewRunFinished error = &fault.Conflict{Err: errors.New("the run has already finished; its review can no longer be decided")}
	// ErrNotReviewer: the caller is neither an owner or admin of the account nor an assignee of the step (403).
	ErrNotReviewer error = &fault.Forbidden{Err: errors.New("only the account's owners and admins, or the users the step names in assignee_user_ids, may decide this review")}
	// ErrStepKeyNeeded: no step key, and the run waits on several reviews (422).
	ErrStepKeyNeeded = fault.FieldSentinel([]any{"body", "step_key"}, "value_error", "the run waits on several reviews: give step_key")
	// ErrEditNotAllowed: edited content for a step without allow_edit (422).
	ErrEditNotAllowed = fault.FieldSentinel([]any{"body", "edited_content"}, "value_error", "this human_in_the_loop step does not allow edits (allow_edit is false)")
)

// Reviewer is who decides a review through the API.
type Reviewer struct {
	UserID string
	// Admin is true for the account's owners and admins, who may decide
	// every review of the account.
	Admin bool
}

// mayDecide reports whether the reviewer may decide rv.
func (who Reviewer) mayDecide(rv Review) bool {
	return who.Admin || (who.UserID != "" && slices.Contains(rv.AssigneeUserIDs, who.UserID))
}

// Decide records a decision on a run's review (an operator or a deadline
// deciding: no reviewer check) and makes sure the run continues.
func (s *Service) Decide(ctx context.Context, accountID, runID, stepKey string, d Decision) (Review, error) {
	return s.decide(ctx, accountID, runID, stepKey, d, nil)
}

// DecideAs is Decide for a user of the account: an owner or admin, or a
// user the step names as assignee.
// An empty stepKey names the run's only pending review.
func (s *Service) DecideAs(ctx context.Context, accountID string, who Reviewer, runID, stepKey string, d Decision) (Review, error) {
	d.DecidedBy, d.TimedOut = who.UserID, false
	if stepKey == "" {
		open, _, err := s.reviews.pending(ctx, accountID, pendingFilter{RunID: runID}, 2, 0)
		if err != nil {
			return Review{}, err
		}
		switch len(open) {
		case 0:
			// Decided already, or never asked for.
			all, err := s.reviews.ofRun(ctx, accountID, runID)
			if err != nil {
				return Review{}, err
			}
			if len(all) == 0 {
				return Review{}, fmt.Errorf("no review of run %s: %w", runID, store.ErrNotFound)
			}
			if last := all[len(all)-1]; who.mayDecide(last) {
				return last, ErrReviewDecided
			}
			return Review{}, ErrNotReviewer
		case 1:
			stepKey = open[0].StepKey
		default:
			return Review{}, ErrStepKeyNeeded
		}
	}
	return s.decide(ctx, accountID, runID, stepKey, d, &who)
}

func (s *Service) decide(ctx context.Context, accountID, runID, stepKey string, d Decision, who *Reviewer) (Review, error) {
	rv, err := s.reviews.review(ctx, accountID, runID, stepKey)
	if err != nil {
		return Review{}, err
	}
	if who != nil && !who.mayDecide(rv) {
		return Review{}, ErrNotReviewer
	}
	if rv.DecidedAt != nil {
		return rv, ErrReviewDecided
	}
	if d.Edited != "" && !rv.AllowEdit {
		return Review{}, ErrEditNotAllowed
	}
	r, err := s.Repo.Run(ctx, accountID, runID)
	if err != nil {
		return Review{}, err
	}
	if RunTerminal(r.Status) {
		return Review{}, ErrReviewRunFinished
	}
	rv, err = s.reviews.decide(ctx, accountID, runID, stepKey, d)
	if errors.Is(err, store.ErrConflict) {
		return rv, ErrReviewDecided
	}
	if err != nil {
		return Review{}, err
	}
	return rv, s.resumeIfParked(ctx, accountID, runID, stepKey)
}

// resumeIfParked enqueues the resume of a run waiting for a review just
// decided. The decision is written before the status is read, and a worker
// parking a run writes the status before it looks for decisions
// (resumeOwed), so whichever of the two comes second sees the other's
// write: a decision that lands while the worker is parking the run still
// resumes it. A run still processing reads the decision when it gets to
// the step; a duplicate resume is a no-op (the job is unique by its
// arguments, and only one worker can take a parked run).
func (s *Service) resumeIfParked(ctx context.Context, accountID, runID, stepKey string) error {
	r, err := s.Repo.Run(ctx, accountID, runID)
	if err != nil {
		return err
	}
	if r.Status != RunWaitingHuman {
		return nil
	}
	return s.enqueue(ctx, r, "review:"+stepKey)
}

// resumeOwed enqueues a resume for every review of a just-parked run that
// was decided while the run was being parked.
func (s *Service) resumeOwed(ctx context.Context, r Run) error {
	keys, err := s.reviews.decidedUnconsumed(ctx, r.ID)
	if err != nil {
		return err
	}
	var errs []error
	for _, k := range keys {
		if err := s.enqueue(ctx, r, "review:"+k); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ResumeDecided is the belt-and-braces sweep: it enqueues a resume for
// every parked run with a decided review it has not taken in (an enqueue
// that failed after a decision, a process that died in between). It
// returns how many resumes it enqueued; one failure does not stop it.
func (s *Service) ResumeDecided(ctx context.Context) (int, error) {
	due, err := s.reviews.parkedWithDecision(ctx, 500)
	errs := []error{err}
	n := 0
	for _, rv := range due {
		r, err := s.Repo.Run(ctx, rv.AccountID, rv.RunID)
		if err == nil && r.Status == RunWaitingHuman {
			err = s.enqueue(ctx, r, "review:"+rv.StepKey)
			if err == nil {
				n++
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("resume run %s after review %s: %w", rv.RunID, rv.StepKey, err))
		}
	}
	return n, errors.Join(errs...)
}

// PendingReviews lists a page of the account's undecided reviews the
// reviewer may decide: all of them for owners and admins, those naming
// the user otherwise. runID narrows to one run.
func (s *Service) PendingReviews(ctx context.Context, accountID string, who Reviewer, runID string, page, limit int) ([]Review, int, error) {
	f := pendingFilter{RunID: runID}
	if !who.Admin {
		if who.UserID == "" {
			return []Review{}, 0, nil
		}
		f.AssigneeUserID = who.UserID
	}
	return s.reviews.pending(ctx, accountID, f, limit, paging.Offset(page, limit))
}

// OpenReviews lists undecided reviews, oldest first; every account's when
// accountID is "" (agentry admin, never a tenant's request). Rows that
// cannot be read are skipped and reported in the error, beside the others.
// It is a read of the database alone, so the operator's list needs no
// runs service (which only server assembly builds whole).
func OpenReviews(ctx context.Context, db *store.DB, accountID string, limit int) ([]Review, error) {
	return reviewRepo{db}.open(ctx, accountID, limit)
}
