package governance

import (
	"context"

	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// ListViolations lists a page of the account's recorded flags and blocks,
// newest first: the policy, the rule, the stage and step, and the reason,
// never the matched text (which is not stored).
func (s *Service) ListViolations(ctx context.Context, accountID string, f store.GovernanceViolationFilter, page, limit int) ([]store.GovernanceViolationRecord, int, error) {
	return s.DB.GovernanceViolations(ctx, accountID, f, paging.Offset(page, limit), limit)
}
