package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/mcpserver/mcpservertest"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/oauth2-proxy/mockoidc"
)

// idToken runs the authorization code flow of the mock provider for a user.
func idToken(t *testing.T, m *mockoidc.MockOIDC, subject string) string {
	t.Helper()
	m.QueueUser(&mockoidc.MockUser{Subject: subject, Email: subject + "@example.com", EmailVerified: true, PreferredUsername: subject})
	redirect := "http://127.0.0.1:1/callback"
	q := url.Values{"client_id": {m.ClientID}, "response_type": {"code"}, "scope": {"openid email profile"}, "state": {"st"}, "redirect_uri": {redirect}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(m.AuthorizationEndpoint() + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	resp, err = http.PostForm(m.TokenEndpoint(), url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {m.ClientID}, "client_secret": {m.ClientSecret}, "redirect_uri": {redirect}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		IDToken string `json:"id_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.IDToken == "" {
		t.Fatalf("token: %v", err)
	}
	return tok.IDToken
}

// TestMCPWithOIDCBearerAndAccountHeader: an OIDC user's bearer token
// authenticates /mcp, and X-Account-Id moves the session into an
// organization the user belongs to — and only such a one.
func TestMCPWithOIDCBearerAndAccountHeader(t *testing.T) {
	idp, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Shutdown() })
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.OIDCIssuer, c.OIDCAudience = idp.Issuer(), idp.ClientID })
		tok := idToken(t, idp, "mcp-"+string(d))
		bearer := "Bearer " + tok
		subject := "mcp-" + string(d)
		if r := s.Do(t, "GET", "/me", "", nil, "Authorization: "+bearer); r.Status != http.StatusOK {
			t.Fatalf("me: %d %s", r.Status, r.Body)
		}
		ctx := context.Background()
		users, err := directory.Users(ctx, s.DB)
		if err != nil {
			t.Fatal(err)
		}
		var userID string
		for _, u := range users {
			if u.OIDCSubject == subject {
				userID = u.ID
			}
		}
		org, err := directory.CreateOrganization(ctx, s.DB, "Acme", s.UserID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, s.DB, org.ID, userID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		r := s.Do(t, "POST", "/agents", "", map[string]any{"name": "org agent",
			"agent_definition": json.RawMessage(`{"child_steps":[{"id":"a","step_type":"text","text":"org {{input}}"}]}`)},
			"Authorization: "+bearer, "X-Account-Id: "+org.ID)
		if r.Status != http.StatusCreated {
			t.Fatalf("create in org: %d %s", r.Status, r.Body)
		}
		var list struct {
			Data []struct{ Name string } `json:"data"`
		}
		inOrg, err := connect(t, s.URL+"/mcp", http.Header{"Authorization": {bearer}, "X-Account-Id": {org.ID}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mcpservertest.Call(t, inOrg, "list_agents", nil, &list)
		if len(list.Data) != 1 || list.Data[0].Name != "org agent" {
			t.Errorf("in the organization: %+v", list)
		}
		personal, err := connect(t, s.URL+"/mcp", http.Header{"Authorization": {bearer}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mcpservertest.Call(t, personal, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("the personal account lists the organization's agents: %+v", list)
		}
		// An organization the user is not a member of: the API's 403.
		other := s.NewTenant(t, "other")
		if _, err := connect(t, s.URL+"/mcp", http.Header{"Authorization": {bearer}, "X-Account-Id": {other.AccountID}}, nil); err == nil ||
			!strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("a foreign X-Account-Id: %v", err)
		}
	})
}
