package alerts

import "context"

// Test hooks: only tests outside this package call them (they cannot use
// an export_test.go), to seed or read what no operation of the service
// writes or reads as such.

// RecordDelivery stores a delivery as the delivery jobs would, for the
// isolation suite's delivery log of another account.
func (s *Service) RecordDelivery(ctx context.Context, d AlertDelivery) (AlertDelivery, error) {
	return s.repo.createDelivery(ctx, d)
}

// OptOuts reads the alert types userID opted out of in organization orgID,
// whoever the user is there: the isolation suite checks another account's
// user stored none (Preferences lists only the organizations the user
// manages, so it could not tell).
func (s *Service) OptOuts(ctx context.Context, userID, orgID string) (map[string]bool, error) {
	return s.repo.optOuts(ctx, userID, orgID)
}
