package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// The account's settings (Agentry extensions): its API keys, members and
// roles, and credits. Owners and admins see every key and change roles; a
// member sees and revokes only their own keys.

// APIKey describes an API key; it never carries the secret.
type APIKey struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Prefix     string  `json:"prefix"`
	Role       string  `json:"role"`
	UserID     *string `json:"user_id"`
	CreatedAt  string  `json:"created_at"`
	LastUsedAt *string `json:"last_used_at"`
	RevokedAt  *string `json:"revoked_at"`
}

// CreatedAPIKey is a new key with its secret, which the server answers
// this once and never again.
type CreatedAPIKey struct {
	APIKey
	Key string `json:"key"`
}

// ListAPIKeys returns a page of the account's keys the caller may see,
// newest first (GET /account/api-keys); page and limit 0 take the defaults.
func (c *Client) ListAPIKeys(ctx context.Context, page, limit int, opts ...CallOption) (*Page[APIKey], error) {
	return ListPage[APIKey](ctx, c, "/account/api-keys", ListQuery{Paging: PageNumbers, Page: page, Limit: min(limit, 200)}, opts...)
}

// CreateAPIKey issues a key for the caller's user with a role no stronger
// than the caller's ("" is member) (POST /account/api-keys).
func (c *Client) CreateAPIKey(ctx context.Context, name, role string, opts ...CallOption) (*CreatedAPIKey, error) {
	body := map[string]string{"name": name}
	if role != "" {
		body["role"] = role
	}
	var out CreatedAPIKey
	if err := c.Do(ctx, http.MethodPost, "/account/api-keys", body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// RevokeAPIKey revokes a key of the account (DELETE /account/api-keys/{key_id}).
func (c *Client) RevokeAPIKey(ctx context.Context, keyID string, opts ...CallOption) (*APIKey, error) {
	var out APIKey
	if err := c.Do(ctx, http.MethodDelete, pathf("/account/api-keys/%s", keyID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// Member is a user of the account with their role.
type Member struct {
	UserID    string  `json:"user_id"`
	Name      string  `json:"name"`
	Email     *string `json:"email"`
	Role      string  `json:"role"`
	CreatedAt string  `json:"created_at"`
}

// ListMembers returns a page of the account's members (GET /account/members).
func (c *Client) ListMembers(ctx context.Context, page, limit int, opts ...CallOption) (*Page[Member], error) {
	return ListPage[Member](ctx, c, "/account/members", ListQuery{Paging: PageNumbers, Page: page, Limit: min(limit, 200)}, opts...)
}

// SetMemberRole changes a member's role: owner, admin or member (PUT
// /account/members/{user_id}; owners and admins only).
func (c *Client) SetMemberRole(ctx context.Context, userID, role string, opts ...CallOption) (*Member, error) {
	var out Member
	if err := c.Do(ctx, http.MethodPut, pathf("/account/members/%s", userID), map[string]string{"role": role}, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// Credits is the account's balance, latest ledger entries and daily spending.
type Credits struct {
	Balance float64 `json:"balance"`
	Ledger  []struct {
		ID           string  `json:"id"`
		Delta        float64 `json:"delta"`
		BalanceAfter float64 `json:"balance_after"`
		Reason       string  `json:"reason"`
		Reference    *string `json:"reference"`
		CreatedAt    string  `json:"created_at"`
	} `json:"ledger"`
	Daily []struct {
		Day     string  `json:"day"`
		Credits float64 `json:"credits"`
	} `json:"daily"`
}

// GetCredits answers the balance, up to ledger entries (0: the server's
// 50) and days of spending (0: 30) (GET /account/credits).
func (c *Client) GetCredits(ctx context.Context, ledger, days int, opts ...CallOption) (*Credits, error) {
	q := url.Values{}
	if ledger > 0 {
		q.Set("ledger", strconv.Itoa(ledger))
	}
	if days > 0 {
		q.Set("days", strconv.Itoa(days))
	}
	var out Credits
	if err := c.Do(ctx, http.MethodGet, "/account/credits", nil, &out, append(opts, WithQuery(q))...); err != nil {
		return nil, err
	}
	return &out, nil
}
