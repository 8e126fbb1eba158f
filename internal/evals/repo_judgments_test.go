package evals

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Judgments journaled with step attempts become evaluation results when
// materialized, from the database alone (so a process that journaled them
// and then died loses none): with the account, agent, run, attempt and
// step of the rows that hold them, once each, and never under a criterion
// that is gone or another account's.
func TestMaterializeJudgments(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		rp := repo{db: db}
		_, acct, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "J"})
		_, other, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "K"})
		agents := map[string]string{}
		for _, account := range []string{acct.ID, other.ID} {
			agents[account] = storetest.JudgedAgent(t, db, account)
		}
		criterion := func(accountID string) string { return judgedCriterion(t, db, accountID, agents[accountID]) }
		kept, deleted, foreign := criterion(acct.ID), criterion(acct.ID), criterion(other.ID)

		if pending, err := rp.judgmentsPending(ctx); err != nil || pending {
			t.Fatalf("pending on an empty journal: %v %v", pending, err)
		}
		r, err := runs.NewRepo(db, nil).CreateRun(ctx, runs.Run{AccountID: acct.ID, AgentID: agents[acct.ID]})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runs.NewRepo(db, nil).StartRunAttempt(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		judged := time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond)
		score := 1.0
		judgment := func(criteriaID string) StepJudgment {
			return StepJudgment{ID: store.NewID(), CriteriaID: criteriaID, EvaluationMode: "eval_and_retry",
				Status: "passed", Score: &score, RetryCount: 1, Details: json.RawMessage(`{"checks":[]}`), EvaluatedAt: judged}
		}
		good := judgment(kept)
		journal := func(judgments json.RawMessage) string { return journalStep(t, db, r.ID, acct.ID, judgments) }
		all, _ := json.Marshal([]StepJudgment{good, judgment(deleted), judgment(foreign)})
		stepRun := journal(all)
		journal(json.RawMessage(`{not json`)) // never blocks the rest
		journal(nil)                          // nothing judged: nothing pending
		if err := rp.deleteCriterion(ctx, acct.ID, deleted); err != nil {
			t.Fatal(err)
		}

		// Journaled but not marked (the run is still going): only a read
		// of the run itself copies them.
		if pending, err := rp.judgmentsPending(ctx); err != nil || pending {
			t.Fatalf("pending before the run marked itself: %v %v", pending, err)
		}
		if n, err := rp.materializeRunJudgments(ctx, other.ID, r.ID); err != nil || n != 0 {
			t.Fatalf("another account materialized the run: %d %v", n, err)
		}
		if n, err := rp.materializeRunJudgments(ctx, acct.ID, r.ID); err != nil || n != 1 {
			t.Fatalf("materialized %d of the running run, %v; want the one judgment whose criterion is the account's and still there", n, err)
		}
		// The run ends: its mark brings what it journaled since, and the
		// judgment copied already is not copied twice.
		later := judgment(kept)
		more, _ := json.Marshal([]StepJudgment{later})
		laterStep := journal(more)
		if err := runs.NewRepo(db, nil).FinishRunAttempt(ctx, r.ID, 1, runs.RunResult{Status: runs.RunCompleted, Judged: true}); err != nil {
			t.Fatal(err)
		}
		if pending, err := rp.judgmentsPending(ctx); err != nil || !pending {
			t.Fatalf("nothing pending after the run ended marked: %v %v", pending, err)
		}
		n, err := rp.materializeJudgments(ctx)
		if err != nil || n != 1 {
			t.Fatalf("materialized %d, %v; want the one judgment made since", n, err)
		}
		if pending, err := rp.judgmentsPending(ctx); err != nil || pending {
			t.Fatalf("still pending after materializing: %v %v", pending, err)
		}
		if n, err := rp.materializeJudgments(ctx); err != nil || n != 0 {
			t.Fatalf("materialized again: %d %v", n, err)
		}
		rs, total, err := rp.results(ctx, ResultFilter{AccountID: acct.ID, RunID: r.ID, Limit: -1})
		if err != nil || total != 2 || len(rs) != 2 {
			t.Fatalf("results %+v %d %v", rs, total, err)
		}
		for _, got := range rs {
			if got.ID == later.ID && got.AgentStepRunID != laterStep {
				t.Errorf("later result %+v", got)
			}
		}
		var got EvaluationResult
		for _, r := range rs {
			if r.ID == good.ID {
				got = r
			}
		}
		if got.ID != good.ID || got.AccountID != acct.ID || got.AgentRunID != r.ID || got.AgentStepRunID != stepRun || got.CriteriaID != kept || got.AgentID != agents[acct.ID] || got.StepID != "s" ||
			got.Status != "passed" || got.Score == nil || *got.Score != 1 || got.RetryCount != 1 || !got.EvaluatedAt.Equal(judged) || !got.CreatedAt.Equal(judged) ||
			string(got.Details) != `{"checks":[]}` {
			t.Errorf("result %+v", got)
		}
		if _, total, _ := rp.results(ctx, ResultFilter{AccountID: other.ID, CriteriaID: foreign, Limit: -1}); total != 0 {
			t.Errorf("a judgment journaled in one account was recorded in another's")
		}
	})
}

// On SQLite judgments are read before the write transaction that copies
// them: a run that settles again in between (it journaled more) keeps its
// mark, and the next pass copies what it added.
func TestMaterializeJudgmentsOfARunThatChangedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	rp := repo{db: db}
	accountID, criterionID, r := newJudgedRun(t, db)
	// attempt journals one judged step and settles the run as status,
	// marking it.
	attempt := func(status string) {
		t.Helper()
		n, err := runs.NewRepo(db, nil).StartRunAttempt(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal([]StepJudgment{{ID: store.NewID(), CriteriaID: criterionID, EvaluationMode: "eval_and_retry",
			Status: "passed", Details: json.RawMessage(`{"checks":[]}`), EvaluatedAt: store.Now()}})
		err = db.Tx(ctx, func(tx *sql.Tx) error {
			id, err := runs.NewRepo(db, nil).InsertStep(ctx, tx, runs.StepRow{RunID: r.ID, AccountID: accountID, Key: "s", StepID: "s", StepType: "text",
				Attempt: n, Status: "processing", StartedAt: time.Now()})
			if err != nil {
				return err
			}
			ended := time.Now()
			return runs.NewRepo(db, nil).FinishStep(ctx, tx, runs.StepRow{ID: id, Status: "completed", Output: "ok", EndedAt: &ended, Judgments: js})
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := runs.NewRepo(db, nil).FinishRunAttempt(ctx, r.ID, n, runs.RunResult{Status: status, Judged: true}); err != nil {
			t.Fatal(err)
		}
	}
	attempt(runs.RunWaitingHuman)
	resumed := false
	rp.afterJudgmentsRead = (func() {
		if !resumed {
			resumed = true
			attempt(runs.RunCompleted)
		}
	})
	if n, err := rp.materializeJudgments(ctx); err != nil || n != 1 {
		t.Fatalf("materialized %d, %v; want the judgment read before the run resumed", n, err)
	}
	if pending, err := rp.judgmentsPending(ctx); err != nil || !pending {
		t.Fatalf("the run that resumed meanwhile lost its mark: %v %v", pending, err)
	}
	if n, err := rp.materializeJudgments(ctx); err != nil || n != 1 {
		t.Fatalf("materialized %d, %v; want the judgment the resumed run added", n, err)
	}
	if _, total, err := rp.results(ctx, ResultFilter{AccountID: accountID, RunID: r.ID, Limit: -1}); err != nil || total != 2 {
		t.Fatalf("%d results, %v", total, err)
	}
}

// BenchmarkMaterializeJudgments: what copying a run's five journaled
// judgments into evaluation_results costs, per result, in batches of 256
// runs (the background pass): in all, how much of it holds the results
// file's writer, and how much the database's writer (what every run of the
// server waits for meanwhile), clearing the runs' marks.
func BenchmarkMaterializeJudgments(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b, store.SQLite)
	rp := repo{db: db}
	_, acct, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "B"})
	agent := storetest.JudgedAgent(b, db, acct.ID)
	var criteria []string
	for range 5 {
		criteria = append(criteria, judgedCriterion(b, db, acct.ID, agent))
	}
	score := 1.0
	details := json.RawMessage(`{"checks":[{"check":"min_length","passed":true,"detail":"length 212 is at least 1"},` +
		`{"check":"not_contains","passed":true,"detail":"does not contain \"confidential\""}],"explanation":"2 of 2 checks passed","pass_threshold":1}`)
	journalRuns := func(n int) {
		for range n {
			r, err := runs.NewRepo(db, nil).CreateRun(ctx, runs.Run{AccountID: acct.ID, AgentID: agent})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := runs.NewRepo(db, nil).StartRunAttempt(ctx, r.ID); err != nil {
				b.Fatal(err)
			}
			err = db.Tx(ctx, func(tx *sql.Tx) error {
				for _, c := range criteria {
					id, err := runs.NewRepo(db, nil).InsertStep(ctx, tx, runs.StepRow{RunID: r.ID, AccountID: acct.ID, Key: "s", StepID: "s", StepType: "text",
						Attempt: 1, Status: "processing", StartedAt: time.Now()})
					if err != nil {
						return err
					}
					js, _ := json.Marshal([]StepJudgment{{ID: store.NewID(), CriteriaID: c, EvaluationMode: "eval_and_retry",
						Status: "passed", Score: &score, Details: details, EvaluatedAt: store.Now()}})
					ended := time.Now()
					if err := runs.NewRepo(db, nil).FinishStep(ctx, tx, runs.StepRow{ID: id, Status: "completed", Output: "ok", EndedAt: &ended, Judgments: js}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if err := runs.NewRepo(db, nil).FinishRunAttempt(ctx, r.ID, 1, runs.RunResult{Status: runs.RunCompleted, Judged: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	var read, written time.Time
	rp.afterJudgmentsRead = (func() { read = time.Now() })
	rp.afterResultsWritten = (func() { written = time.Now() })
	var writingResults, clearingMarks time.Duration
	b.ResetTimer()
	results := 0
	for b.Loop() {
		b.StopTimer()
		journalRuns(256)
		b.StartTimer()
		n, err := rp.materializeJudgments(ctx)
		writingResults += written.Sub(read)
		clearingMarks += time.Since(written)
		if err != nil || n != 256*len(criteria) {
			b.Fatalf("materialized %d, %v", n, err)
		}
		results += n
	}
	perResult := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(results) }
	b.ReportMetric(perResult(b.Elapsed()), "µs/result")
	b.ReportMetric(perResult(writingResults), "µs-results-writer/result")
	b.ReportMetric(perResult(clearingMarks), "µs-db-writer/result")
}

// journalStep records a finished attempt of the run's step s holding the
// judgments, as the runs' journal does (through the runs area's repository
// packing them as the server builds it), and returns the attempt's id.
func journalStep(t testing.TB, db *store.DB, runID, accountID string, judgments json.RawMessage) string {
	t.Helper()
	ctx := context.Background()
	runRows := runs.NewRepo(db, PackJudgments)
	var id string
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = runRows.InsertStep(ctx, tx, runs.StepRow{RunID: runID, AccountID: accountID, Key: "s", StepID: "s", StepType: "text",
			Attempt: 1, Status: "processing", StartedAt: time.Now()}); err != nil {
			return err
		}
		ended := time.Now()
		return runRows.FinishStep(ctx, tx, runs.StepRow{ID: id, Status: "completed", Output: "ok", EndedAt: &ended, Judgments: judgments})
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// judgedCriterion creates an enabled eval_and_retry criterion of the
// agent's step s and returns its id.
func judgedCriterion(t testing.TB, db *store.DB, accountID, agentID string) string {
	t.Helper()
	c, err := repo{db: db}.createCriterion(context.Background(), EvaluationCriterion{AccountID: accountID, AgentID: agentID, StepID: "s",
		EvaluationMode: "eval_and_retry", Enabled: true, PassThreshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// newJudgedRun creates an account with a judged agent (judgedAgent), one
// criterion of its step and a run of it not yet started.
func newJudgedRun(t testing.TB, db *store.DB) (accountID, criterionID string, run runs.Run) {
	t.Helper()
	ctx := context.Background()
	_, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "J"})
	if err != nil {
		t.Fatal(err)
	}
	agent := storetest.JudgedAgent(t, db, acct.ID)
	criterionID = judgedCriterion(t, db, acct.ID, agent)
	if run, err = runs.NewRepo(db, nil).CreateRun(ctx, runs.Run{AccountID: acct.ID, AgentID: agent}); err != nil {
		t.Fatal(err)
	}
	return acct.ID, criterionID, run
}
