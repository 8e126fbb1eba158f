package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/server"
)

// startBare serves the comparison handler: the least a Go JSON endpoint
// can do, behind the same kind of http.Server the product runs.
func startBare(ctx context.Context) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "hello, world"})
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() { _ = srv.Serve(l) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return "http://" + l.Addr().String(), nil
}

// agentry is the product server running in this process.
type agentry struct {
	URL, Key, AccountID string
	S                   *server.Server
	done                chan error
}

// startAgentry assembles the real server (internal/server, as `agentry
// serve` does) on loopback with a fresh bootstrap key.
//
// The rate limit is turned off (RateLimit 0): the default 50 requests per
// second per key would answer nearly every request of a single-key load
// test with 429, measuring the limiter's refusal path instead of the
// authenticated request path. Everything else is the default
// configuration, so the 2-second auth cache is in play as in production.
func startAgentry(ctx context.Context, dataDir, databaseURL string) (*agentry, error) {
	key, _, _ := auth.NewKey()
	cfg := server.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = dataDir
	cfg.DatabaseURL = databaseURL
	cfg.BootstrapAPIKey = key
	cfg.RateLimit = 0
	cfg.ShutdownTimeout = 5 * time.Second
	s, err := server.New(ctx, cfg, io.Discard)
	if err != nil {
		return nil, err
	}
	addr, err := s.Listen()
	if err != nil {
		return nil, err
	}
	a := &agentry{URL: "http://" + addr.String(), Key: key, S: s, done: make(chan error, 1)}
	k, err := auth.APIKeyByHash(ctx, s.DB, auth.HashKey(key))
	if err != nil {
		return nil, fmt.Errorf("bootstrap key not found (is the database empty?): %w", err)
	}
	a.AccountID = k.AccountID
	go func() { a.done <- s.Run(ctx) }()
	return a, nil
}

// checkMe makes sure GET /me answers the bootstrap account before the run,
// so the load run measures successes, not errors.
func (a *agentry) checkMe(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.URL+"/me", nil)
	req.Header.Set("X-API-Key", a.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var me struct {
		AccountID string `json:"account_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&me); err != nil || resp.StatusCode != http.StatusOK || me.AccountID != a.AccountID {
		return fmt.Errorf("GET /me: status %d, account %q (want %s), err %v", resp.StatusCode, me.AccountID, a.AccountID, err)
	}
	return nil
}

// pgSchema creates a fresh schema on the PostgreSQL server at base and
// returns a URL selecting it, and a function dropping it: the run needs an
// empty database for its bootstrap key, and must leave nothing behind.
func pgSchema(ctx context.Context, base string) (string, func(), error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, errors.New("-pg wants a postgres:// URL")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "agentry_load_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop := func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = db.ExecContext(c, `DROP SCHEMA `+schema+` CASCADE`)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
