package runs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestStartIsOneTransaction: the run, its first event and its job commit
// together. A failure after the run and its event are written, just before
// the job is inserted, leaves none of them; a start that succeeds leaves
// all three. So a crash can no longer strand a run without its job.
func TestStartIsOneTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		def, _, err := definition.ParseDefinition([]byte(`{"child_steps":[{"id":"t","step_type":"text","text":"ran {{input}}"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		// An API-only replica: jobs stay in the queue to be counted.
		api := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		agent := storeAgent(t, api, def, definition.TriggerDynamicInput)
		count := func(q string, args ...any) int {
			t.Helper()
			var n int
			if err := api.DB.R.QueryRow(q, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		crash := errors.New("the process died here")
		var doomed string
		runs.SetBeforeEnqueueHook(api.S.Runs, func(runID string) error { doomed = runID; return crash })
		in := "x"
		if _, err := api.S.Runs.Start(ctx, api.AccountID, agent, runs.StartRequest{Input: &in}); !errors.Is(err, crash) {
			t.Fatalf("start: %v, want the injected failure", err)
		}
		if doomed == "" {
			t.Fatal("the hook was not called")
		}
		if n := count(`SELECT COUNT(*) FROM runs WHERE id = $1`, doomed); n != 0 {
			t.Errorf("the failed start left its run")
		}
		if n := count(`SELECT COUNT(*) FROM events WHERE stream_id = $1`, doomed); n != 0 {
			t.Errorf("the failed start left %d events", n)
		}
		if n := jobsForRun(t, api, doomed); n != 0 {
			t.Errorf("the failed start left %d jobs", n)
		}

		runs.SetBeforeEnqueueHook(api.S.Runs, func(string) error { return nil })
		r, err := api.S.Runs.Start(ctx, api.AccountID, agent, runs.StartRequest{Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(`SELECT COUNT(*) FROM runs WHERE id = $1 AND status = 'pending'`, r.ID); n != 1 {
			t.Errorf("the run is missing")
		}
		if n := count(`SELECT COUNT(*) FROM events WHERE stream_id = $1 AND type = 'status'`, r.ID); n != 1 {
			t.Errorf("the run has %d status events, want 1", n)
		}
		if n := jobsForRun(t, api, r.ID); n != 1 {
			t.Errorf("the run has %d jobs, want 1", n)
		}
	})
}
