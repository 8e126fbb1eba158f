package domains

import (
	"context"

	"github.com/agentry/agentry/internal/store"
)

// MarkVerified records a domain as verified without a DNS check. Only
// tests outside this package call it (they cannot use an export_test.go):
// the suites that seed a verified domain for an account.
func (s *Service) MarkVerified(ctx context.Context, accountID, id string) (Domain, error) {
	now := store.Now()
	d, err := s.repo.recordCheck(ctx, accountID, id, checkOutcome{Status: StatusVerified, Checks: "{}", VerifiedAt: &now, CheckedAt: now})
	if err != nil {
		return Domain{}, err
	}
	return s.view(d), nil
}
