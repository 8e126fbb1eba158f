package mcpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/mcpserver/mcpservertest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport sends fixed headers (the caller's credentials) with
// every request of an MCP client.
type headerTransport struct{ h http.Header }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, url string, headers http.Header, p *mcpservertest.Progress) (*mcp.ClientSession, error) {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if p != nil {
		opts.ProgressNotificationHandler = p.Add
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{headers}}, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

func TestMCPOverHTTP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		p := &mcpservertest.Progress{}
		sess, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {s.Key}}, p)
		if err != nil {
			t.Fatal(err)
		}
		agent := mcpservertest.Exercise(t, sess, p)

		// Without credentials, or with a wrong key, the API's 401.
		if _, err := connect(t, s.URL+"/mcp", http.Header{}, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("no credentials: %v", err)
		}
		if _, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {"agk_wrong"}}, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("wrong key: %v", err)
		}
		resp, err := http.Post(s.URL+"/mcp", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("bare POST: %d", resp.StatusCode)
		}

		// Another account sees nothing of the first's.
		other := s.NewTenant(t, "other")
		os, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {other.Key}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Data []struct{ ID string } `json:"data"`
		}
		mcpservertest.Call(t, os, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("another account lists %v", list.Data)
		}
		for _, tool := range []string{"get_agent", "get_agent_attachment_references", "run_agent"} {
			res := mcpservertest.CallRaw(t, os, tool, map[string]any{"agent_id": agent}, nil)
			if !res.IsError || !strings.Contains(mcpservertest.Text(res), "404") {
				t.Errorf("%s of another account's agent: %s", tool, mcpservertest.Text(res))
			}
		}
		// X-Account-Id of an account the key does not belong to is ignored
		// for API keys, as by the API: still nothing of the first account.
		xs, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {other.Key}, "X-Account-Id": {s.AccountID}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mcpservertest.Call(t, xs, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("X-Account-Id let another key list %v", list.Data)
		}
	})
}
