package server_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Operator gives an operator command the services serve assembles — a
// runs service wired to the engine, models, agents and queue — on a
// migrated database it does not bootstrap.
func TestOperatorAssemblesServicesWithoutBootstrap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		cfg := server.Defaults()
		cfg.DataDir, cfg.DatabaseURL = t.TempDir(), storetest.URL(t, d)
		s, err := server.Operator(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		r := s.Runs
		if r == nil || r.DB == nil || r.Queue == nil || r.Engine == nil || r.Models == nil || r.Catalog == nil ||
			r.Meter == nil || r.Secrets == nil || r.Bus == nil || r.Agents == nil || r.Uploads == nil {
			t.Fatalf("runs service not fully wired: %+v", r)
		}
		if _, ok := r.Engine.Tools.Tool("current_datetime"); !ok {
			t.Error("the engine has no tools")
		}
		if n, err := directory.AccountCount(context.Background(), s.DB); err != nil || n != 0 {
			t.Errorf("operator assembly bootstrapped: %d accounts, %v", n, err)
		}
	})
}
