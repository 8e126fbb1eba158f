package api

import (
	"context"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/store"
)

// OrganizationInfo is one organization the caller belongs to. An
// organization is an account, so its id and account id are the same.
type OrganizationInfo struct {
	ID        string `json:"id" format:"uuid"`
	Name      string `json:"name"`
	AccountID string `json:"account_id" format:"uuid"`
}

// MeResponse answers GET /me.
type MeResponse struct {
	AccountID     string             `json:"account_id" format:"uuid"`
	Organizations []OrganizationInfo `json:"organizations"`
}

type meOutput struct{ Body MeResponse }

// getMe answers the caller's account and organizations. For a user that is
// the personal account and every organization they belong to. An API key
// speaks for one account only, so it answers that account, and lists
// organizations only when the key is a personal key of its user.
func (s *Server) getMe(ctx context.Context, _ *struct{}) (*meOutput, error) {
	p := principal(ctx)
	out := MeResponse{AccountID: p.AccountID, Organizations: []OrganizationInfo{}}
	userID := p.UserID
	if p.Method == auth.MethodOIDC {
		u, err := s.deps.DB.User(ctx, p.UserID)
		if err != nil {
			return nil, err
		}
		out.AccountID = u.PersonalAccountID
	} else if userID != "" && p.AccountKind != store.KindPersonal {
		a, err := s.deps.DB.Account(ctx, p.AccountID)
		if err != nil {
			return nil, err
		}
		if a.Kind == store.KindOrganization {
			out.Organizations = append(out.Organizations, OrganizationInfo{ID: a.ID, Name: a.Name, AccountID: a.ID})
			userID = ""
		}
	}
	if userID != "" {
		orgs, err := s.deps.DB.Organizations(ctx, userID)
		if err != nil {
			return nil, err
		}
		for _, o := range orgs {
			out.Organizations = append(out.Organizations, OrganizationInfo{ID: o.AccountID, Name: o.AccountName, AccountID: o.AccountID})
		}
	}
	return &meOutput{Body: out}, nil
}
