package runs

import (
	"context"
	"errors"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/secrets"
)

// Secrets resolves account secrets for the steps of runs; the secrets
// area (*secrets.Service) implements it.
type Secrets interface {
	Reveal(ctx context.Context, accountID, name string) (secrets.Secret, error)
}

// Secret resolves a secret of the run's own account, and of no other, with
// the hosts its writer bound it to.
func (h *host) Secret(ctx context.Context, name string) (engine.Secret, error) {
	if h.s.Secrets == nil {
		return engine.Secret{}, errors.New("account secrets are not available on this server")
	}
	s, err := h.s.Secrets.Reveal(ctx, h.run.AccountID, name)
	if err != nil {
		return engine.Secret{}, err
	}
	return engine.Secret{Name: s.Name, Value: s.Value, Hosts: s.Hosts}, nil
}
