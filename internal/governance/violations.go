package governance

import (
	"context"

	"github.com/agentry/agentry/internal/paging"
)

// ListViolations lists a page of the account's recorded flags and blocks,
// newest first: the policy, the rule, the stage and step, and the reason,
// never the matched text (which is not stored).
func (s *Service) ListViolations(ctx context.Context, accountID string, f GovernanceViolationFilter, page, limit int) ([]GovernanceViolationRecord, int, error) {
	return s.repo.violations(ctx, accountID, f, paging.Offset(page, limit), limit)
}

// RecordViolation stores a flag or block (the service's checks record
// theirs as they report them).
func (s *Service) RecordViolation(ctx context.Context, v GovernanceViolation) error {
	return s.repo.recordViolation(ctx, v)
}

// RunVerdicts lists, deduplicated by policy, the policies that blocked and
// those that flagged something in a run, in the order they first did.
func (s *Service) RunVerdicts(ctx context.Context, accountID, runID string) (blocked, flagged []PolicyRef, err error) {
	return s.repo.runVerdicts(ctx, accountID, runID)
}
