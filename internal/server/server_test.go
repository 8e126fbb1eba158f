package server_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestReplicasBootstrapOnce starts several replicas on one empty database at
// once: migrations take turns, and exactly one of them bootstraps an owner.
func TestReplicasBootstrapOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		url := storetest.EmptyURL(t, d)
		const replicas = 4
		outs := make([]*bytes.Buffer, replicas)
		servers := make([]*server.Server, replicas)
		var wg sync.WaitGroup
		for i := range replicas {
			outs[i] = &bytes.Buffer{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				cfg := server.Defaults()
				cfg.Addr, cfg.DataDir, cfg.DatabaseURL = "127.0.0.1:0", t.TempDir(), url
				s, err := server.New(context.Background(), cfg, outs[i])
				if err != nil {
					t.Error(err)
					return
				}
				servers[i] = s
			}()
		}
		wg.Wait()
		printed := 0
		for _, o := range outs {
			if strings.Contains(o.String(), "agk_") {
				printed++
			}
		}
		if printed != 1 {
			t.Fatalf("%d replicas bootstrapped", printed)
		}
		if s := servers[0]; s != nil {
			n, _ := directory.AccountCount(context.Background(), s.DB)
			if n != 1 {
				t.Errorf("%d accounts after bootstrap", n)
			}
		}
		for _, s := range servers {
			if s != nil {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				_ = s.Run(ctx) // closes everything; the listener is bound then released
			}
		}
	})
}

func TestConfigValidation(t *testing.T) {
	for name, mutate := range map[string]func(*server.Config){
		"role":         func(c *server.Config) { c.Role = "both" },
		"oidc half":    func(c *server.Config) { c.OIDCIssuer = "https://idp" },
		"cache ttl":    func(c *server.Config) { c.AuthCacheTTL = 0 },
		"slow revoke":  func(c *server.Config) { c.AuthCacheTTL = 10e9 },
		"rescue":       func(c *server.Config) { c.JobRescueAfter = c.JobTimeout },
		"rescue none":  func(c *server.Config) { c.JobRescueInterval = 0 },
		"rescue slow":  func(c *server.Config) { c.JobRescueInterval = time.Minute },
		"credits":      func(c *server.Config) { c.DefaultCredits = -1 },
		"stream cap":   func(c *server.Config) { c.MaxStreamsPerKey = -1 },
		"job stop":     func(c *server.Config) { c.JobShutdownTimeout = -time.Second },
		"step output":  func(c *server.Config) { c.MaxStepOutputBytes = 0 },
		"step > run":   func(c *server.Config) { c.MaxStepOutputBytes = c.MaxRunOutputBytes + 1 },
		"steps":        func(c *server.Config) { c.MaxStepsPerRun = -1 },
		"index bytes":  func(c *server.Config) { c.FullTextIndexBytes = -1 },
		"vector bytes": func(c *server.Config) { c.VectorIndexBytes = -1 },
	} {
		c := server.Defaults()
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	c := server.Defaults()
	if err := c.Validate(); err != nil || !strings.HasPrefix(c.BlobURL, "file://") {
		t.Errorf("defaults: %v %q", err, c.BlobURL)
	}
}
