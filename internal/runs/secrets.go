package runs

import (
	"context"
	"errors"
)

// Secrets resolves account secrets for the steps of runs; the secrets
// area (*secrets.Service) implements it.
type Secrets interface {
	Reveal(ctx context.Context, accountID, name string) (string, error)
}

// Secret resolves a secret of the run's own account, and of no other.
func (h *host) Secret(ctx context.Context, name string) (string, error) {
	if h.s.Secrets == nil {
		return "", errors.New("account secrets are not available on this server")
	}
	return h.s.Secrets.Reveal(ctx, h.run.AccountID, name)
}
