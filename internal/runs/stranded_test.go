package runs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func jobsForRun(t *testing.T, s *testserver.Server, runID string) int {
	t.Helper()
	var n int
	if err := s.DB.R.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'agent_run' AND CAST(args AS TEXT) LIKE $1`, "%"+runID+"%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStrandedRuns: a run whose job was never enqueued (the process died
// in between) is enqueued by the sweeper and completes; sweeping a run
// whose job still waits adds no second job, so nothing runs twice.
func TestStrandedRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		def, _, err := definition.ParseDefinition([]byte(`{"child_steps":[{"id":"t","step_type":"text","text":"ran {{input}}"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		url := storetest.URL(t, d)
		// An API-only replica enqueues but never works, so jobs stay put.
		api := testserver.Start(t, d, func(c *server.Config) { c.DatabaseURL, c.Role = url, server.RoleAPI })
		agent := storeAgent(t, api, def, definition.TriggerDynamicInput)
		in := "x"
		queued, err := api.S.Runs.Start(ctx, api.AccountID, agent, runs.StartRequest{Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		stranded, err := runs.NewRepo(api.DB, nil).CreateRun(ctx, runs.Run{AccountID: api.AccountID, AgentID: agent, Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := api.S.Runs.RequeueStranded(ctx, time.Now().Add(time.Hour)); err != nil || n != 2 {
			t.Fatalf("swept %d, %v", n, err)
		}
		if got := jobsForRun(t, api, queued.ID); got != 1 {
			t.Errorf("a queued run has %d jobs after a sweep", got)
		}
		if got := jobsForRun(t, api, stranded.ID); got != 1 {
			t.Errorf("the stranded run has %d jobs", got)
		}
		// A worker replica on the same database runs both, once each.
		startWorker := testserver.Start(t, d, func(c *server.Config) { c.DatabaseURL, c.Role = url, server.RoleWorker })
		_ = startWorker
		for _, id := range []string{queued.ID, stranded.ID} {
			done := waitDone(t, api, id)
			if done.Status != runs.RunCompleted || !strings.HasPrefix(*done.Output, "ran") {
				t.Errorf("run %s: %s %s", id, done.Status, done.Error)
			}
			if atts, _ := runs.NewRepo(api.DB, nil).RunAttempts(ctx, id); len(atts) != 1 {
				t.Errorf("run %s executed %d times", id, len(atts))
			}
		}
	})
}
