// Package testserver starts a real Agentry server for tests: the full
// process assembly (server.New) on a fresh database of the given dialect,
// listening on a loopback port, with the first-start owner key at hand and a
// way to add more tenants. API, client, isolation and conformance suites all
// start their servers through it, so each runs on both databases.
package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/mail/dkimkey"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Server is a running server and the owner it bootstrapped.
type Server struct {
	URL       string // http://127.0.0.1:PORT
	Key       string // the bootstrap owner's API key
	AccountID string // the owner's personal account
	UserID    string
	S         *server.Server
	DB        *store.DB
}

// BootstrapKey is the owner key every test server starts with.
const BootstrapKey = "agk_test_owner_key_0123456789abcdefghijklmnop"

// Start runs a server until the test ends. opts adjust the configuration
// (rate limits, OIDC, …) before it starts.
func Start(t testing.TB, d store.Dialect, opts ...func(*server.Config)) *Server {
	t.Helper()
	return StartPrinting(t, d, io.Discard, opts...)
}

// StartPrinting is Start, writing what the first start prints (the owner's
// key, the console's sign-in link) to out.
func StartPrinting(t testing.TB, d store.Dialect, out io.Writer, opts ...func(*server.Config)) *Server {
	t.Helper()
	cfg := server.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.DatabaseURL = storetest.URL(t, d)
	cfg.BootstrapAPIKey = BootstrapKey
	cfg.RateLimit = 0
	cfg.AuthFailureRate = 0
	cfg.ShutdownTimeout = 5 * time.Second
	cfg.JobShutdownTimeout = 3 * time.Second
	// Mail's DNS lookups go to loopback, where nothing answers, unless a
	// test starts its own DNS server: tests never query the network.
	cfg.DNSResolver = "127.0.0.1:1"
	// One shared-domain DKIM key for the whole test process: making an
	// RSA key at every server start would slow every suite.
	cfg.MailDKIMKeyFile = dkimKeyFile(t, cfg.DataDir)
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := server.New(ctx, cfg, out)
	if err != nil {
		cancel()
		t.Fatalf("start server: %v", err)
	}
	addr, err := s.Listen()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("server did not stop within 15s")
		}
	})
	ts := &Server{URL: "http://" + addr.String(), Key: BootstrapKey, S: s, DB: s.DB}
	k, err := auth.APIKeyByHash(ctx, s.DB, auth.HashKey(BootstrapKey))
	if err != nil {
		t.Fatalf("bootstrap key: %v", err)
	}
	ts.AccountID, ts.UserID = k.AccountID, k.UserID
	return ts
}

var (
	dkimOnce sync.Once
	dkimPEM  []byte
)

// dkimKeyFile writes the process's test DKIM key into dir.
func dkimKeyFile(t testing.TB, dir string) string {
	t.Helper()
	dkimOnce.Do(func() {
		k, err := dkimkey.Generate()
		if err != nil {
			panic(err)
		}
		der, err := dkimkey.MarshalPrivate(k)
		if err != nil {
			panic(err)
		}
		dkimPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	})
	p := filepath.Join(dir, "dkim-test.pem")
	if err := os.WriteFile(p, dkimPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Tenant is another account with its own owner and key.
type Tenant struct {
	Key, AccountID, UserID string
}

// NewTenant creates a user with a personal account and an owner key for it.
func (s *Server) NewTenant(t testing.TB, name string) Tenant {
	t.Helper()
	ctx := context.Background()
	u, a, err := directory.CreateUser(ctx, s.DB, directory.NewUser{Name: name, OpeningCredits: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return Tenant{Key: s.IssueKey(t, a.ID, u.ID, store.RoleOwner), AccountID: a.ID, UserID: u.ID}
}

// IssueKey creates an API key for an account with a role.
func (s *Server) IssueKey(t testing.TB, accountID, userID, role string) string {
	t.Helper()
	secret, prefix, hash := auth.NewKey()
	if _, err := auth.CreateAPIKey(context.Background(), s.DB, auth.APIKey{AccountID: accountID, UserID: userID, Name: "test", Prefix: prefix, Role: role}, hash); err != nil {
		t.Fatal(err)
	}
	return secret
}

// Response is a request's outcome.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test if it is not JSON.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("response %d is not JSON: %v\n%s", r.Status, err, r.Body)
	}
}

// Do sends a request with key (none when "") and optional headers given as
// "Name: value" strings; body is marshalled as JSON unless it is a string or
// []byte, which are sent as they are.
func (s *Server) Do(t testing.TB, method, path, key string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// StoreAgent stores an agent of accountID with a workflow definition (JSON)
// and a trigger type, straight into the agents area's tables, for tests of
// other areas that need an agent but are not testing how one is created.
func (s *Server) StoreAgent(t testing.TB, accountID, name, definition, trigger string) string {
	t.Helper()
	a, err := agents.NewRepo(s.DB).CreateAgent(context.Background(), agents.NewAgent{
		Agent: agents.Agent{AccountID: accountID, Name: name, Definition: json.RawMessage(definition),
			Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
		Trigger: agents.Trigger{Type: trigger, Config: json.RawMessage(`{}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}
