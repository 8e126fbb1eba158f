package alerts

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
)

// Default configurations. The contract lets the service create
// default-enabled credits alerts for active accounts at runtime; Agentry
// does so in the credits sweep, for every account that spent credits in
// the last DefaultsActiveWindow. The inbound-pause alert gets its default
// when an account's breaker first arms. Each default is offered once per
// account and type: deleting it is respected, and an account that made
// its own configuration of the type gets none.

// DefaultsActiveWindow is how recently an account must have spent credits
// to be given the default credits alerts.
const DefaultsActiveWindow = 30 * 24 * time.Hour

// defaultCooldown spaces a default configuration's alerts: credit
// balances and an inbox pause move slowly.
const defaultCooldown = 24 * 60

// EnsureDefault gives the account the default configuration of an
// account-level type unless it has one of its own or was given it before.
// It reports whether it created one.
func (s *Service) EnsureDefault(ctx context.Context, accountID, alertType string) (bool, error) {
	c := AlertConfig{AccountID: accountID, AlertType: alertType, Enabled: true, CooldownMinutes: defaultCooldown,
		DistributionType: DistributionOwner, RecipientUserIDs: []string{}}
	if alertType == InboundEmailPaused {
		c.CooldownMinutes = 60
	}
	if a, err := directory.GetAccount(ctx, s.DB, accountID); err != nil {
		return false, err
	} else if a.Kind == directory.KindOrganization {
		c.DistributionType = DistributionOwnerAdmins
	}
	created, err := s.repo.createDefault(ctx, c)
	if created {
		slog.InfoContext(ctx, "default alert configuration created", "account_id", accountID, "type", alertType)
	}
	return created, err
}

// CreateCreditDefaults gives every account active in the last
// DefaultsActiveWindow the default credits configurations it lacks.
func (s *Service) CreateCreditDefaults(ctx context.Context) error {
	since := s.now().Add(-DefaultsActiveWindow)
	for _, t := range CreditTypes {
		after := ""
		for {
			ids, err := s.repo.activeWithoutConfig(ctx, t, since, after, sweepPage)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if _, err := s.EnsureDefault(ctx, id, t); err != nil {
					return err
				}
				after = id
			}
			if len(ids) < sweepPage {
				break
			}
		}
	}
	return nil
}
