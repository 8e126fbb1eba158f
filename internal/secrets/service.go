package secrets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/store"
)

// Limits on what an account stores.
const (
	MaxValueBytes  = 16 << 10 // one value
	MaxPerAccount  = 200      // names per account
	MaxNameLength  = definition.MaxSecretNameLength
	NamePatternDoc = "a letter or underscore, then up to 63 letters, digits or underscores"
)

// The area's refusals, in the fault vocabulary (the API answers each with
// its status and sentence).
var (
	ErrInvalidName error = &fault.Invalid{Items: []fault.Item{{Loc: []any{"path", "name"}, Msg: "Secret names are " + NamePatternDoc, Type: "value_error"}},
		Err: errors.New("secret names are " + NamePatternDoc)}
	ErrInvalidValue        = fault.FieldSentinel([]any{"body", "value"}, "value_error", fmt.Sprintf("a secret value is 1 to %d bytes of UTF-8", MaxValueBytes))
	ErrTooMany       error = &fault.Conflict{Msg: fmt.Sprintf("The account already has %d secrets; delete one before adding another", MaxPerAccount), Err: errors.New("too many secrets")}
	ErrMissingSecret       = errors.New("no such account secret") // a step's failure
	// ErrInvalidHosts is a hosts list that is not a list of host patterns.
	ErrInvalidHosts = fault.FieldSentinel([]any{"body", "hosts"}, "value_error", "invalid hosts")
	// ErrHostsRequired is a new secret stored without the hosts it may go to.
	ErrHostsRequired = fault.FieldSentinel([]any{"body", "hosts"}, "value_error", "a new secret needs hosts: the hosts it may be sent to")
	// ErrValueRequired is a hosts-only change of a secret that does not exist.
	ErrValueRequired = fault.FieldSentinel([]any{"body", "value"}, "missing", "there is no such secret yet: send its value with its hosts")
)

// Secret is an opened secret and the hosts it may be sent to.
type Secret struct {
	Name, Value string
	Hosts       []string
}

// New builds the service; box seals and opens the values.
func New(db *store.DB, box *Box) *Service { return &Service{DB: db, Box: box} }

// Service stores and resolves the secrets of accounts.
type Service struct {
	DB  *store.DB
	Box *Box
}

func (s *Service) repo() repo { return repo{s.DB} }

// Put creates or replaces accountID's secret name. value nil keeps the
// stored value (a change of hosts only); hosts nil keep the stored hosts.
// A new secret needs both. created reports a new name.
func (s *Service) Put(ctx context.Context, accountID, name string, value *string, hosts []string) (Info, bool, error) {
	if !definition.ValidSecretName(name) {
		return Info{}, false, ErrInvalidName
	}
	if value != nil && (*value == "" || len(*value) > MaxValueBytes || !utf8.ValidString(*value)) {
		return Info{}, false, ErrInvalidValue
	}
	if hosts != nil {
		var err error
		if hosts, err = CanonicalHosts(hosts); err != nil {
			return Info{}, false, err
		}
	}
	sealed := Sealed{Info: Info{Name: name}}
	if value != nil {
		ct, err := s.Box.Seal(accountID, name, []byte(*value))
		if err != nil {
			return Info{}, false, err
		}
		sealed.Ciphertext, sealed.KeyID = ct, s.Box.KeyID()
	} else if hosts == nil {
		return Info{}, false, ErrValueRequired
	}
	info, created, err := s.repo().put(ctx, accountID, sealed, hosts, MaxPerAccount)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Info{}, false, ErrValueRequired
	case errors.Is(err, errNeedsHosts):
		return Info{}, false, ErrHostsRequired
	}
	return info, created, err
}

// CanonicalHosts checks a secret's hosts and returns them canonical,
// without duplicates.
func CanonicalHosts(hosts []string) ([]string, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%w: bind the secret to at least one host (%s)", ErrInvalidHosts, outbound.HostPatternDoc)
	}
	if len(hosts) > outbound.MaxSecretHosts {
		return nil, fmt.Errorf("%w: at most %d hosts", ErrInvalidHosts, outbound.MaxSecretHosts)
	}
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		c, err := outbound.ParseHostPattern(h)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidHosts, err)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// List returns accountID's secret names and times, never values.
func (s *Service) List(ctx context.Context, accountID string) ([]Info, error) {
	return s.repo().list(ctx, accountID)
}

// Delete removes accountID's secret name (store.ErrNotFound when absent).
func (s *Service) Delete(ctx context.Context, accountID, name string) error {
	if !definition.ValidSecretName(name) {
		return store.ErrNotFound
	}
	return s.repo().remove(ctx, accountID, name)
}

// Reveal opens accountID's secret name for a step about to use it, with
// the hosts it may be sent to: the caller must send it (or anything made
// from it) to those hosts only (outbound.GuardSecrets). Its errors name
// the secret, never the value, and say what to do.
func (s *Service) Reveal(ctx context.Context, accountID, name string) (Secret, error) {
	if !definition.ValidSecretName(name) {
		return Secret{}, fmt.Errorf("%w: %q is not a secret name (%s)", ErrMissingSecret, name, NamePatternDoc)
	}
	sealed, err := s.repo().sealed(ctx, accountID, name)
	if errors.Is(err, store.ErrNotFound) {
		return Secret{}, fmt.Errorf("%w: the account has no secret %q; store it with PUT /secrets/%s or `agentry secrets set %s`",
			ErrMissingSecret, name, name, name)
	}
	if err != nil {
		return Secret{}, err
	}
	v, err := s.Box.Open(accountID, name, sealed.Ciphertext)
	if err != nil {
		if sealed.KeyID != s.Box.KeyID() {
			return Secret{}, fmt.Errorf("account secret %q was sealed with another secrets key (%s, this server has %s): "+
				"every server of a deployment needs the same SERVICE_SECRETS_KEY", name, sealed.KeyID, s.Box.KeyID())
		}
		return Secret{}, fmt.Errorf("account secret %q: %w", name, err)
	}
	return Secret{Name: name, Value: string(v), Hosts: sealed.Hosts}, nil
}

// Binding is what outbound.GuardSecrets needs of the secret.
func (s Secret) Binding() outbound.SecretBinding {
	return outbound.SecretBinding{Name: s.Name, Hosts: s.Hosts}
}
