package api

import "context"

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

// getMe answers the caller's account and organizations (accounts.Identity
// says which).
func (s *Server) getMe(ctx context.Context, _ *struct{}) (*meOutput, error) {
	id, err := s.deps.Accounts.Identity(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	out := MeResponse{AccountID: id.AccountID, Organizations: make([]OrganizationInfo, len(id.Organizations))}
	for i, o := range id.Organizations {
		out.Organizations[i] = OrganizationInfo{ID: o.AccountID, Name: o.Name, AccountID: o.AccountID}
	}
	return &meOutput{Body: out}, nil
}
