// Package accounts owns what the API answers about the caller's own
// identity and account: which account a credential speaks for, the
// organizations its user belongs to, the account's pinned API version, and
// which models the account has used. Its tables (accounts, users,
// memberships) are read and written by its repository, package directory.
package accounts

import (
	"context"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
)

// Service reads and changes accounts for their own members.
type Service struct{ db *store.DB }

// New returns the service on db.
func New(db *store.DB) *Service { return &Service{db: db} }

// Organization is one organization the caller belongs to. An organization
// is an account, so its id is its account id.
type Organization struct {
	AccountID string
	Name      string
}

// Identity is who a principal is: the account it answers for and the
// organizations it may act in.
type Identity struct {
	AccountID     string
	Organizations []Organization
}

// Identity answers the caller's account and organizations. For a user that
// is the personal account and every organization they belong to. An API key
// speaks for one account only, so it answers that account, and lists
// organizations only when the key is a personal key of its user.
func (s *Service) Identity(ctx context.Context, p auth.Principal) (Identity, error) {
	out := Identity{AccountID: p.AccountID, Organizations: []Organization{}}
	userID := p.UserID
	if p.Method == auth.MethodOIDC || p.Method == auth.MethodConsole {
		u, err := directory.GetUser(ctx, s.db, p.UserID)
		if err != nil {
			return Identity{}, err
		}
		out.AccountID = u.PersonalAccountID
	} else if userID != "" && p.AccountKind != directory.KindPersonal {
		a, err := directory.GetAccount(ctx, s.db, p.AccountID)
		if err != nil {
			return Identity{}, err
		}
		if a.Kind == directory.KindOrganization {
			out.Organizations = append(out.Organizations, Organization{AccountID: a.ID, Name: a.Name})
			userID = ""
		}
	}
	if userID != "" {
		orgs, err := directory.Organizations(ctx, s.db, userID)
		if err != nil {
			return Identity{}, err
		}
		for _, o := range orgs {
			out.Organizations = append(out.Organizations, Organization{AccountID: o.AccountID, Name: o.AccountName})
		}
	}
	return out, nil
}

// APIVersion is the account's pinned API version ("" when unpinned).
func (s *Service) APIVersion(ctx context.Context, accountID string) (string, error) {
	a, err := directory.GetAccount(ctx, s.db, accountID)
	if err != nil {
		return "", err
	}
	return a.APIVersion, nil
}

// SetAPIVersion pins the account to v, or clears the pin with "".
func (s *Service) SetAPIVersion(ctx context.Context, accountID, v string) error {
	return directory.SetAPIVersion(ctx, s.db, accountID, v)
}

// RecentModels are the models the account called most recently, newest
// first, at most limit.
func (s *Service) RecentModels(ctx context.Context, accountID string, limit int) ([]string, error) {
	return billing.NewCredits(s.db).RecentModels(ctx, accountID, limit)
}

// ModelUsage is how often and when last the account called model.
func (s *Service) ModelUsage(ctx context.Context, accountID, model string) (billing.ModelUse, error) {
	return billing.NewCredits(s.db).ModelUsage(ctx, accountID, model)
}
