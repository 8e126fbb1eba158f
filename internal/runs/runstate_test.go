package runs_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

func parseDef(t *testing.T, js string) *definition.Definition {
	t.Helper()
	d, _, err := definition.ParseDefinition([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func countEvents(t *testing.T, s *testserver.Server, runID, typ string) int {
	t.Helper()
	evs, err := s.S.Runs.Bus.Read(context.Background(), s.AccountID, runID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func workJob(ctx context.Context, s *testserver.Server, runID string) error {
	w := &runs.Worker{S: s.S.Runs}
	return w.Work(ctx, &river.Job[runs.RunArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: runs.RunArgs{RunID: runID}})
}

// TestCancelRacesWorker: a cancel and a worker race for a queued run
// many times. Each run ends exactly once (one done event, one attempt),
// and a cancel answered "failed" is what the run ends as.
func TestCancelRacesWorker(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		// An API-only server: jobs are enqueued but this test works them.
		s := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		agent := storeAgent(t, s, parseDef(t, `{"child_steps":[{"id":"t","step_type":"text","text":"ran {{input}}"}]}`), definition.TriggerDynamicInput)
		outcomes := map[string]int{}
		for i := 0; i < 40; i++ {
			in := "x"
			r, err := s.S.Runs.Start(ctx, s.AccountID, agent, runs.StartRequest{Input: &in})
			if err != nil {
				t.Fatal(err)
			}
			var (
				wg         sync.WaitGroup
				answer     runs.RunResponse
				cerr, werr error
			)
			wg.Add(2)
			go func() { defer wg.Done(); werr = workJob(ctx, s, r.ID) }()
			go func() { defer wg.Done(); answer, cerr = s.S.Runs.Cancel(ctx, s.AccountID, r.ID) }()
			wg.Wait()
			if werr != nil {
				t.Fatalf("run %d: worker: %v", i, werr)
			}
			final, err := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if cerr != nil && final.Status != runs.RunCompleted {
				t.Fatalf("run %d: cancel failed (%v) but the run is %s", i, cerr, final.Status)
			}
			if !runs.RunTerminal(final.Status) {
				t.Fatalf("run %d: left %s", i, final.Status)
			}
			if n := countEvents(t, s, r.ID, "done"); n != 1 {
				t.Fatalf("run %d (%s): %d done events", i, final.Status, n)
			}
			if atts, _ := runs.NewRepo(s.DB, nil).RunAttempts(ctx, r.ID); len(atts) != 1 {
				t.Fatalf("run %d (%s): %d attempts", i, final.Status, len(atts))
			}
			if cerr == nil && answer.Status == runs.RunFailed && final.Status != runs.RunFailed {
				t.Fatalf("run %d: the cancel answered failed, the run ended %s", i, final.Status)
			}
			if final.Status == runs.RunFailed && final.Error != "Run cancelled" {
				t.Fatalf("run %d failed: %s", i, final.Error)
			}
			outcomes[final.Status]++
		}
		t.Logf("outcomes: %v", outcomes)
	})
}

// TestDecisionWhileParking: a review decided after the worker asked for
// it but before the run is parked (the decider finds the run still
// processing, so enqueues nothing) still gets the run resumed: the worker
// that parks it enqueues the resume. The test works the jobs itself on an
// API-only server, so no sweep can hide a missing resume.
func TestDecisionWhileParking(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		agent := storeAgent(t, s, parseDef(t, `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"ok?","allow_edit":true,
			"child_steps":[{"id":"show","step_type":"display_result","template":"published: {{input}}"}]}]}`), definition.TriggerDynamicInput)
		var decided error
		runs.SetBeforeParkHook(s.S.Runs, func(runID, key string) {
			got, _ := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, runID)
			if got.Status != runs.RunProcessing {
				t.Errorf("the hook ran with the run %s", got.Status)
			}
			_, decided = s.S.Runs.Decide(ctx, s.AccountID, runID, key, runs.Decision{Approved: true, Edited: "edited"})
		})
		in := "draft"
		r, err := s.S.Runs.Start(ctx, s.AccountID, agent, runs.StartRequest{Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		if err := workJob(ctx, s, r.ID); err != nil || decided != nil {
			t.Fatalf("work: %v; decide: %v", err, decided)
		}
		if got, _ := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, r.ID); got.Status != runs.RunWaitingHuman {
			t.Fatalf("after the first job the run is %s", got.Status)
		}
		if n := jobsForRun(t, s, r.ID); n != 2 {
			t.Fatalf("the parked run has %d jobs; want its first and a resume", n)
		}
		// The sweep of parked runs finds the decided review too, and adds
		// no second resume job.
		if n, err := s.S.Runs.ResumeDecided(ctx); err != nil || n != 1 {
			t.Fatalf("sweep: %d %v", n, err)
		}
		if n := jobsForRun(t, s, r.ID); n != 2 {
			t.Fatalf("after the sweep the run has %d jobs", n)
		}
		w := &runs.Worker{S: s.S.Runs}
		if err := w.Work(ctx, &river.Job[runs.RunArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: runs.RunArgs{RunID: r.ID, Resume: "review:review"}}); err != nil {
			t.Fatal(err)
		}
		done, _ := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, r.ID)
		if done.Status != runs.RunCompleted || done.Output == nil || *done.Output != "published: edited" {
			t.Fatalf("run %s %v %s", done.Status, done.Output, done.Error)
		}
		if n := countEvents(t, s, r.ID, "done"); n != 1 {
			t.Errorf("%d done events", n)
		}
		// Taken in: nothing left for the sweep.
		if n, err := s.S.Runs.ResumeDecided(ctx); err != nil || n != 0 {
			t.Errorf("sweep after the resume: %d %v", n, err)
		}
	})
}

// TestDeadlineSweepGoesPastBadReview: one overdue review that cannot be
// applied (its run is not in its account) is reported, and the sweep
// still applies the others.
func TestDeadlineSweepGoesPastBadReview(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		other := s.NewTenant(t, "other")
		parked := func(deadline time.Time, reviewAccount string) runs.Run {
			r, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: s.AccountID, AgentID: store.NewID()})
			if err != nil {
				t.Fatal(err)
			}
			n, err := runs.NewRepo(s.DB, nil).StartRunAttempt(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := runs.RequestReview(ctx, s.S.Runs, runs.Review{RunID: r.ID, StepKey: "h", AccountID: reviewAccount, Deadline: deadline, OnTimeout: "reject"}); err != nil && reviewAccount == s.AccountID {
				t.Fatal(err)
			}
			if err := runs.NewRepo(s.DB, nil).FinishRunAttempt(ctx, r.ID, n, runs.RunResult{Status: runs.RunWaitingHuman}); err != nil {
				t.Fatal(err)
			}
			return r
		}
		bad := parked(time.Now().Add(-2*time.Hour), other.AccountID)
		good := parked(time.Now().Add(-time.Hour), s.AccountID)

		err := (&runs.ReviewDeadlinesWorker{S: s.S.Runs}).Work(ctx, &river.Job[runs.ReviewDeadlinesArgs]{})
		if err == nil || !strings.Contains(err.Error(), bad.ID) {
			t.Errorf("the sweep did not report the bad review: %v", err)
		}
		rv, err := s.S.Runs.Review(ctx, s.AccountID, good.ID, "h")
		if err != nil || rv.DecidedAt == nil || rv.Approved || !rv.TimedOut {
			t.Fatalf("the good review after the sweep: %+v %v", rv, err)
		}
		if n := jobsForRun(t, s, good.ID); n != 1 {
			t.Errorf("the good review's run has %d resume jobs", n)
		}
	})
}

// TestCallAgentToPausedAgent: a call_agent step whose (rendered) target is
// paused fails with the reason a run request of it gets, and starts no run
// of it; a live target named by a placeholder runs.
func TestCallAgentToPausedAgent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		callee := storeAgent(t, s, parseDef(t, `{"child_steps":[{"id":"t","step_type":"text","text":"callee got {{input}}"}]}`), definition.TriggerDynamicInput)
		caller := storeAgent(t, s, parseDef(t, `{"child_steps":[{"id":"c","step_type":"call_agent","agent_id":"{{metadata.callee}}"}]}`), definition.TriggerDynamicInput)
		call := func() runs.Run {
			in := "hi"
			r, err := s.S.Runs.Start(ctx, s.AccountID, caller, runs.StartRequest{Input: &in, Metadata: map[string]any{"callee": callee}})
			if err != nil {
				t.Fatal(err)
			}
			if err := workJob(ctx, s, r.ID); err != nil {
				t.Fatal(err)
			}
			got, _ := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, r.ID)
			return got
		}
		if got := call(); got.Status != runs.RunCompleted || *got.Output != "callee got hi" {
			t.Fatalf("live callee: %s %s", got.Status, got.Error)
		}
		if _, err := s.S.Agents.Disable(ctx, s.AccountID, callee, s.UserID); err != nil {
			t.Fatal(err)
		}
		got := call()
		if got.Status != runs.RunFailed || !strings.Contains(got.Error, runs.ErrDisabled.Error()) {
			t.Fatalf("paused callee: %s %q", got.Status, got.Error)
		}
		if _, n, _ := runs.NewRepo(s.DB, nil).RunsOfAgent(ctx, s.AccountID, callee, "", 10, 0); n != 1 {
			t.Errorf("the paused callee has %d runs; want only the one from before the pause", n)
		}
	})
}

// TestFailDeadlineWhileParking: a deadline with on_timeout "fail" that
// lands while the worker is parking the run still fails the run, once.
func TestFailDeadlineWhileParking(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		// A deadline a few milliseconds away (the validator would refuse it;
		// the worker takes what is stored).
		agent := s.StoreAgent(t, s.AccountID, "hurried", `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"ok?",
			"timeout_minutes":0.0001,"on_timeout":"fail","child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}"}]}]}`, "dynamic_input")
		var swept error
		runs.SetBeforeParkHook(s.S.Runs, func(runID, key string) {
			time.Sleep(20 * time.Millisecond)
			swept = (&runs.ReviewDeadlinesWorker{S: s.S.Runs}).Work(ctx, &river.Job[runs.ReviewDeadlinesArgs]{})
		})
		in := "draft"
		r, err := s.S.Runs.Start(ctx, s.AccountID, agent, runs.StartRequest{Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		if err := workJob(ctx, s, r.ID); err != nil || swept != nil {
			t.Fatalf("work: %v; sweep: %v", err, swept)
		}
		if rv, _ := s.S.Runs.Review(ctx, s.AccountID, r.ID, "review"); rv.DecidedAt == nil || !rv.TimedOut {
			t.Fatalf("the deadline did not apply: %+v", rv)
		}
		w := &runs.Worker{S: s.S.Runs}
		if err := w.Work(ctx, &river.Job[runs.RunArgs]{JobRow: &rivertype.JobRow{Attempt: 1}, Args: runs.RunArgs{RunID: r.ID, Resume: "review:review"}}); err != nil {
			t.Fatal(err)
		}
		done, _ := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, r.ID)
		if done.Status != runs.RunFailed || !strings.Contains(done.Error, "No reviewer decided before the deadline") {
			t.Fatalf("run %s %q", done.Status, done.Error)
		}
		if n := countEvents(t, s, r.ID, "done"); n != 1 {
			t.Errorf("%d done events", n)
		}
	})
}
