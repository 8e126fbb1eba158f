package secrets

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/store"
)

// Limits on what an account stores.
const (
	MaxValueBytes  = 16 << 10 // one value
	MaxPerAccount  = 200      // names per account
	MaxNameLength  = definition.MaxSecretNameLength
	NamePatternDoc = "a letter or underscore, then up to 63 letters, digits or underscores"
)

// Errors the API maps to statuses.
var (
	ErrInvalidName   = errors.New("secret names are " + NamePatternDoc)                      // 422
	ErrInvalidValue  = fmt.Errorf("a secret value is 1 to %d bytes of UTF-8", MaxValueBytes) // 422
	ErrTooMany       = store.ErrTooManySecrets                                               // 409
	ErrMissingSecret = errors.New("no such account secret")                                  // a step's failure
)

// Service stores and resolves the secrets of accounts.
type Service struct {
	DB  *store.DB
	Box *Box
}

// Put creates or replaces accountID's secret name. created reports a new name.
func (s *Service) Put(ctx context.Context, accountID, name, value string) (store.SecretInfo, bool, error) {
	if !definition.ValidSecretName(name) {
		return store.SecretInfo{}, false, ErrInvalidName
	}
	if value == "" || len(value) > MaxValueBytes || !utf8.ValidString(value) {
		return store.SecretInfo{}, false, ErrInvalidValue
	}
	sealed, err := s.Box.Seal(accountID, name, []byte(value))
	if err != nil {
		return store.SecretInfo{}, false, err
	}
	return s.DB.PutSecret(ctx, accountID, store.SealedSecret{SecretInfo: store.SecretInfo{Name: name},
		Ciphertext: sealed, KeyID: s.Box.KeyID()}, MaxPerAccount)
}

// List returns accountID's secret names and times, never values.
func (s *Service) List(ctx context.Context, accountID string) ([]store.SecretInfo, error) {
	return s.DB.Secrets(ctx, accountID)
}

// Delete removes accountID's secret name (store.ErrNotFound when absent).
func (s *Service) Delete(ctx context.Context, accountID, name string) error {
	if !definition.ValidSecretName(name) {
		return store.ErrNotFound
	}
	return s.DB.DeleteSecret(ctx, accountID, name)
}

// Reveal opens accountID's secret name for a step about to use it. Its
// errors name the secret, never the value, and say what to do.
func (s *Service) Reveal(ctx context.Context, accountID, name string) (string, error) {
	if !definition.ValidSecretName(name) {
		return "", fmt.Errorf("%w: %q is not a secret name (%s)", ErrMissingSecret, name, NamePatternDoc)
	}
	sealed, err := s.DB.SealedSecret(ctx, accountID, name)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("%w: the account has no secret %q; store it with PUT /secrets/%s or `agentry secrets set %s`",
			ErrMissingSecret, name, name, name)
	}
	if err != nil {
		return "", err
	}
	v, err := s.Box.Open(accountID, name, sealed.Ciphertext)
	if err != nil {
		if sealed.KeyID != s.Box.KeyID() {
			return "", fmt.Errorf("account secret %q was sealed with another secrets key (%s, this server has %s): "+
				"every server of a deployment needs the same SERVICE_SECRETS_KEY", name, sealed.KeyID, s.Box.KeyID())
		}
		return "", fmt.Errorf("account secret %q: %w", name, err)
	}
	return string(v), nil
}
