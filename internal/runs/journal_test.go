package runs_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestJournalHoldsLocalStepsUntilObservable: the records of local steps
// (text, regex_replace…) wait in memory, and are committed, in order and
// with their events, before anything outside the process can see the
// run move on: an event a client reads (a stream token), or the start of
// a step that is not local (a model or outbound call).
func TestJournalHoldsLocalStepsUntilObservable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		def, _, err := definition.ParseDefinition([]byte(`{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		api := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		agent := storeAgent(t, api, def, definition.TriggerDynamicInput)
		in := "x"
		r, err := runs.NewRepo(api.DB, nil).CreateRun(ctx, runs.Run{AccountID: api.AccountID, AgentID: agent, Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		j := runs.NewJournal(api.S.Runs, r)
		onDisk := func() (steps map[string]string, types []string) {
			t.Helper()
			rows, err := runs.NewRepo(api.DB, nil).Steps(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			steps = map[string]string{}
			for _, s := range rows {
				steps[s.StepID] = s.Status
			}
			evs, err := api.S.Bus.Read(ctx, api.AccountID, r.ID, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				types = append(types, e.Type)
			}
			return steps, types
		}
		step := func(id, typ string) {
			t.Helper()
			rec := engine.StepRecord{Key: id, StepID: id, StepType: typ, Status: engine.StatusProcessing, Attempt: 1, StartedAt: time.Now()}
			if err := j.StepStarted(ctx, rec); err != nil {
				t.Fatal(err)
			}
			if typ == "prompt_call" {
				return // left running
			}
			rec.Status, rec.Output, rec.EndedAt = engine.StatusCompleted, "out "+id, time.Now()
			if err := j.StepFinished(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}

		step("a", "text")
		step("b", "regex_replace")
		if steps, types := onDisk(); len(steps) != 0 || len(types) != 0 {
			t.Fatalf("local steps committed before anything observable: %v %v", steps, types)
		}
		if err := j.Emit(ctx, engine.Event{Type: "stream_token", Data: map[string]any{"token": "hi"}}); err != nil {
			t.Fatal(err)
		}
		steps, types := onDisk()
		if steps["a"] != "completed" || steps["b"] != "completed" {
			t.Errorf("steps after a stream token: %v", steps)
		}
		want := []string{"step_started", "step_completed", "step_started", "step_completed", "stream_token"}
		if len(types) != len(want) {
			t.Fatalf("events %v, want %v", types, want)
		}
		for i := range want {
			if types[i] != want[i] {
				t.Fatalf("events %v, want %v", types, want)
			}
		}

		step("c", "text")
		step("ask", "prompt_call")
		if steps, _ := onDisk(); steps["c"] != "completed" || steps["ask"] != "processing" {
			t.Errorf("steps once a model call starts: %v; want c completed and ask processing", steps)
		}
	})
}
