package runs_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestNextFire(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) // 21:00 in Tokyo
	next, err := runs.NextFire("0 9 * * *", "Asia/Tokyo", at)
	if err != nil || !next.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("09:00 Tokyo after %v: %v %v", at, next, err)
	}
	if _, err := runs.NextFire("61 * * * *", "", at); err == nil {
		t.Error("bad cron accepted")
	}
	if _, err := runs.NextFire("@hourly", "Mars/Olympus", at); err == nil {
		t.Error("bad zone accepted")
	}
}

func scheduledAgent(t *testing.T, s *testserver.Server, due time.Time) string {
	t.Helper()
	a, err := agents.NewRepo(s.DB).CreateAgent(context.Background(), agents.NewAgent{
		Agent: agents.Agent{AccountID: s.AccountID, Name: "nightly", Definition: json.RawMessage(`{"child_steps":[{"id":"t","step_type":"text","text":"report for {{metadata.scheduled_for}}"}]}`),
			Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
		Trigger: agents.Trigger{Type: "schedule", Config: json.RawMessage(`{}`),
			Schedules: []agents.Schedule{{CronExpression: "*/5 * * * *", Timezone: "Europe/Paris", Enabled: true, NextRunAt: &due}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func TestSchedulesFireOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		due := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		agent := scheduledAgent(t, s, due)
		paused := scheduledAgent(t, s, due)
		if _, _, err := agents.NewRepo(s.DB).DisableAgent(ctx, s.AccountID, paused, s.UserID, "manual"); err != nil {
			t.Fatal(err)
		}
		now := due.Add(30 * time.Second)
		// Two schedulers (replicas) tick at once.
		var wg sync.WaitGroup
		started := make([][]runs.Run, 2)
		for i := range started {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.S.Runs.FireDue(ctx, now)
				if err != nil {
					t.Error(err)
				}
				started[i] = r
			}()
		}
		wg.Wait()
		if n := len(started[0]) + len(started[1]); n != 1 {
			t.Fatalf("%d runs started for one due schedule", n)
		}
		run := append(started[0], started[1]...)[0]
		if run.AgentID != agent || run.TriggerType != "schedule" {
			t.Errorf("run %+v", run)
		}
		// Nothing is due any more, the paused agent's schedule included.
		if again, _ := s.S.Runs.FireDue(ctx, now); len(again) != 0 {
			t.Errorf("fired again: %d", len(again))
		}
		if due, _ := runs.DueScheduleIDs(ctx, s.S.Runs, now); len(due) != 0 {
			t.Errorf("still due: %+v", due)
		}
		// The run executes with the schedule's time in its metadata.
		deadline := time.Now().Add(20 * time.Second)
		for {
			r, _ := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, run.ID)
			if r.Status == runs.RunCompleted {
				if r.Output == nil || *r.Output != "report for 2026-11-22T10:00:00Z" {
					t.Errorf("output %v", r.Output)
				}
				break
			}
			if time.Now().After(deadline) || r.Status == runs.RunFailed {
				t.Fatalf("scheduled run %s: %s", r.Status, r.Error)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestContentHook(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		mk := func(trigger string) string {
			return s.StoreAgent(t, s.AccountID, trigger, `{"child_steps":[{"id":"t","step_type":"text","text":"new: {{input}}"}]}`, trigger)
		}
		content := mk("new_content")
		mk("dynamic_input")
		paused := mk("new_content")
		if _, _, err := agents.NewRepo(s.DB).DisableAgent(ctx, s.AccountID, paused, s.UserID, "manual"); err != nil {
			t.Fatal(err)
		}
		started, err := s.S.Runs.Fire(ctx, s.AccountID, "new_content", "", "doc.txt", map[string]any{"source": "s1"})
		if err != nil || len(started) != 1 || started[0].AgentID != content {
			t.Fatalf("fired %+v %v", started, err)
		}
		other := s.NewTenant(t, "other")
		if started, _ := s.S.Runs.Fire(ctx, other.AccountID, "new_content", "", "x", nil); len(started) != 0 {
			t.Errorf("another account's content fired %d runs", len(started))
		}
		// Narrowed to one agent: that one only, and only with the trigger.
		second := mk("new_content")
		started, err = s.S.Runs.Fire(ctx, s.AccountID, "new_content", second, "doc.txt", nil)
		if err != nil || len(started) != 1 || started[0].AgentID != second {
			t.Fatalf("fired for one agent: %+v %v", started, err)
		}
		dynamic := mk("dynamic_input")
		for _, id := range []string{dynamic, paused} {
			if started, _ := s.S.Runs.Fire(ctx, s.AccountID, "new_content", id, "doc.txt", nil); len(started) != 0 {
				t.Errorf("fired %d runs of %s", len(started), id)
			}
		}
		if started, _ := s.S.Runs.Fire(ctx, other.AccountID, "new_content", content, "x", nil); len(started) != 0 {
			t.Errorf("another account fired this account's agent: %d runs", len(started))
		}
	})
}
