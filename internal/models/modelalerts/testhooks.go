package modelalerts

import "context"

// Only tests outside this package call what follows (they cannot use an
// export_test.go): the suites that seed upgrades and alerts directly and
// read back the upgrades applied.

// StoreUpgrade records an upgrade as applied without applying it.
func (s *Service) StoreUpgrade(ctx context.Context, u ModelUpgrade) (ModelUpgrade, error) {
	return s.repo.recordUpgrade(ctx, u)
}

// StoredUpgrades lists an agent's upgrades as stored, oldest first.
func (s *Service) StoredUpgrades(ctx context.Context, accountID, agentID string) ([]ModelUpgrade, error) {
	return s.repo.upgrades(ctx, accountID, agentID)
}

// StoreAlert records an alert as the checks would, unless the account
// has one with its DedupeKey (created says which): the isolation and
// conformance suites seed alerts with it.
func (s *Service) StoreAlert(ctx context.Context, a ModelAlert) (out ModelAlert, created bool, err error) {
	return s.repo.recordAlert(ctx, a)
}
