package secrets

import "context"

// SealedForTest reads a secret as stored, for tests that check what is at
// rest.
func (s *Service) SealedForTest(ctx context.Context, accountID, name string) (Sealed, error) {
	return s.repo().sealed(ctx, accountID, name)
}

// PutSealedForTest stores a sealed row as it is, for tests that copy one
// into another account.
func (s *Service) PutSealedForTest(ctx context.Context, accountID string, sealed Sealed, hosts []string) error {
	_, _, err := s.repo().put(ctx, accountID, sealed, hosts, MaxPerAccount)
	return err
}
