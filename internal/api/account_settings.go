package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/accounts"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
)

// The account's settings, extensions: its API keys (a new key's secret
// answered once), its members and their roles, its credits. The rules of
// who may do what live in internal/accounts.

const (
	listAPIKeysDoc = "The account's API keys, newest first, never their secrets. Owners and admins see every key of the account; " +
		"a member sees only their own."
	createAPIKeyDoc = "Issues an API key in the account, for the caller's user, with a role no stronger than the caller's (403 otherwise). " +
		"The answer's key is the secret: it is shown this once; only its hash is stored."
	revokeAPIKeyDoc = "Revokes a key of the account; every server refuses it within seconds. Owners and admins revoke any key of the account, " +
		"a member only their own (another's is a 404)."
	listMembersDoc   = "The account's members with their roles."
	setMemberRoleDoc = "Changes a member's role (owner, admin or member). Owners and admins only; making or unmaking an owner needs an owner; " +
		"the last owner cannot be demoted (409)."
	getCreditsDoc = "The account's credit balance, its latest ledger entries and the credits spent per UTC day."
)

// APIKeyResponse describes a key; it never carries the secret.
type APIKeyResponse struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Prefix     string  `json:"prefix" doc:"The key's first characters, to recognise it by."`
	Role       string  `json:"role"`
	UserID     *string `json:"user_id" nullable:"true" doc:"The user the key belongs to; null for a key of the account alone."`
	CreatedAt  string  `json:"created_at"`
	LastUsedAt *string `json:"last_used_at" nullable:"true"`
	RevokedAt  *string `json:"revoked_at" nullable:"true"`
}

// CreatedAPIKeyResponse is a new key with its secret, answered once.
type CreatedAPIKeyResponse struct {
	APIKeyResponse
	Key string `json:"key" doc:"The secret. Shown once: it is not stored and cannot be read again."`
}

// APIKeyListResponse is the keys' {data, pagination} envelope.
type APIKeyListResponse = Envelope[APIKeyResponse]

func apiKeyResponse(k accounts.APIKey) APIKeyResponse {
	r := APIKeyResponse{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Role: k.Role, CreatedAt: k.CreatedAt.UTC().Format(time.RFC3339),
		LastUsedAt: timePtr(k.LastUsedAt), RevokedAt: timePtr(k.RevokedAt)}
	if k.UserID != "" {
		r.UserID = &k.UserID
	}
	return r
}

type listAPIKeysInput struct {
	Page  int `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number (1-based)."`
	Limit int `query:"limit" default:"100" minimum:"1" maximum:"200" doc:"Keys per page (1-200)."`
}

type apiKeyListOutput struct{ Body APIKeyListResponse }

func (s *Server) listAPIKeys(ctx context.Context, in *listAPIKeysInput) (*apiKeyListOutput, error) {
	keys, err := s.deps.Accounts.Keys(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	from := min(paging.Offset(in.Page, in.Limit), len(keys))
	to := min(from+in.Limit, len(keys))
	items := make([]APIKeyResponse, 0, to-from)
	for _, k := range keys[from:to] {
		items = append(items, apiKeyResponse(k))
	}
	return &apiKeyListOutput{Body: APIKeyListResponse{Data: items, Pagination: PageOf(in.Page, in.Limit, len(keys))}}, nil
}

type createAPIKeyInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"100" doc:"A name to recognise the key by."`
		Role string `json:"role,omitempty" required:"false" enum:"owner,admin,member" doc:"The role the key acts with (default member); no stronger than the caller's."`
	}
}

type createdAPIKeyOutput struct{ Body CreatedAPIKeyResponse }

func (s *Server) createAPIKey(ctx context.Context, in *createAPIKeyInput) (*createdAPIKeyOutput, error) {
	k, secret, err := s.deps.Accounts.CreateKey(ctx, principal(ctx), in.Body.Name, in.Body.Role)
	if err != nil {
		return nil, err
	}
	return &createdAPIKeyOutput{Body: CreatedAPIKeyResponse{APIKeyResponse: apiKeyResponse(k), Key: secret}}, nil
}

type apiKeyIDPath struct {
	KeyID string `path:"key_id" format:"uuid" doc:"The key's id."`
}

type apiKeyOutput struct{ Body APIKeyResponse }

func (s *Server) revokeAPIKey(ctx context.Context, in *apiKeyIDPath) (*apiKeyOutput, error) {
	k, err := s.deps.Accounts.RevokeKey(ctx, principal(ctx), in.KeyID)
	if err != nil {
		return nil, fault.Name(err, "API key")
	}
	return &apiKeyOutput{Body: apiKeyResponse(k)}, nil
}

// MemberResponse is a member of the account.
type MemberResponse struct {
	UserID    string  `json:"user_id"`
	Name      string  `json:"name"`
	Email     *string `json:"email" nullable:"true"`
	Role      string  `json:"role" doc:"owner, admin or member."`
	CreatedAt string  `json:"created_at" doc:"When the user joined the account."`
}

func memberResponse(m accounts.Member) MemberResponse {
	r := MemberResponse{UserID: m.UserID, Name: m.Name, Role: m.Role, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339)}
	if m.Email != "" {
		r.Email = &m.Email
	}
	return r
}

type memberListOutput struct{ Body Envelope[MemberResponse] }

func (s *Server) listMembers(ctx context.Context, in *listAPIKeysInput) (*memberListOutput, error) {
	all, err := s.deps.Accounts.Members(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	from := min(paging.Offset(in.Page, in.Limit), len(all))
	to := min(from+in.Limit, len(all))
	items := make([]MemberResponse, 0, to-from)
	for _, m := range all[from:to] {
		items = append(items, memberResponse(m))
	}
	return &memberListOutput{Body: Envelope[MemberResponse]{Data: items, Pagination: PageOf(in.Page, in.Limit, len(all))}}, nil
}

type setMemberRoleInput struct {
	UserID string `path:"user_id" format:"uuid" doc:"The member's user id."`
	Body   struct {
		Role string `json:"role" doc:"owner, admin or member."`
	}
}

type memberOutput struct{ Body MemberResponse }

func (s *Server) setMemberRole(ctx context.Context, in *setMemberRoleInput) (*memberOutput, error) {
	m, err := s.deps.Accounts.SetMemberRole(ctx, principal(ctx), in.UserID, in.Body.Role)
	if err != nil {
		return nil, fault.Name(err, "Member")
	}
	return &memberOutput{Body: memberResponse(m)}, nil
}

// CreditsResponse is the account's credits.
type CreditsResponse struct {
	Balance float64               `json:"balance" doc:"Credits left (1,000,000 credits = US$1)."`
	Ledger  []LedgerEntryResponse `json:"ledger" doc:"The latest movements of the balance, newest first."`
	Daily   []DailyCreditsSpent   `json:"daily" doc:"Credits spent per UTC day, oldest first, every day of the window."`
}

// LedgerEntryResponse is one movement of the balance.
type LedgerEntryResponse struct {
	ID           string  `json:"id"`
	Delta        float64 `json:"delta" doc:"Positive for a grant, negative for spending."`
	BalanceAfter float64 `json:"balance_after"`
	Reason       string  `json:"reason"`
	Reference    *string `json:"reference" nullable:"true"`
	CreatedAt    string  `json:"created_at"`
}

// DailyCreditsSpent is one day's spending.
type DailyCreditsSpent struct {
	Day     string  `json:"day" doc:"YYYY-MM-DD (UTC)."`
	Credits float64 `json:"credits"`
}

type getCreditsInput struct {
	Ledger int `query:"ledger" default:"50" minimum:"0" maximum:"500" doc:"How many ledger entries (0-500)."`
	Days   int `query:"days" default:"30" minimum:"1" maximum:"366" doc:"How many days of spending, today included (1-366)."`
}

type creditsOutput struct{ Body CreditsResponse }

func (s *Server) getCredits(ctx context.Context, in *getCreditsInput) (*creditsOutput, error) {
	c, err := s.deps.Accounts.Credits(ctx, principal(ctx).AccountID, in.Ledger, in.Days, time.Now())
	if err != nil {
		return nil, err
	}
	out := CreditsResponse{Balance: c.Balance, Ledger: make([]LedgerEntryResponse, 0, len(c.Ledger)), Daily: make([]DailyCreditsSpent, 0, len(c.Days))}
	for _, e := range c.Ledger {
		r := LedgerEntryResponse{ID: e.ID, Delta: e.Delta, BalanceAfter: e.BalanceAfter, Reason: e.Reason, CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339)}
		if e.Reference != "" {
			ref := e.Reference
			r.Reference = &ref
		}
		out.Ledger = append(out.Ledger, r)
	}
	for _, d := range c.Days {
		out.Daily = append(out.Daily, DailyCreditsSpent{Day: d.Day, Credits: d.Credits})
	}
	return &creditsOutput{Body: out}, nil
}
