package evals

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// resultsFixture is an account with an agent and a criterion of it.
type resultsFixture struct {
	db                             *store.DB
	account, agent, criterion, run string
}

func newResultsFixture(t *testing.T, db *store.DB, name string) resultsFixture {
	t.Helper()
	ctx := context.Background()
	_, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	f := resultsFixture{db: db, account: acct.ID, agent: storetest.JudgedAgent(t, db, acct.ID)}
	f.criterion = f.newCriterion(t)
	r, err := runs.NewRepo(db, nil).CreateRun(ctx, runs.Run{AccountID: f.account, AgentID: f.agent})
	if err != nil {
		t.Fatal(err)
	}
	f.run = r.ID
	return f
}

func (f resultsFixture) newCriterion(t *testing.T) string {
	t.Helper()
	c, err := repo{db: f.db}.createCriterion(context.Background(), EvaluationCriterion{AccountID: f.account, AgentID: f.agent,
		StepID: "s", EvaluationMode: "eval_and_retry", Enabled: true, PassThreshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// push records a result as an external harness does.
func (f resultsFixture) push(criterion string) error {
	_, err := repo{db: f.db}.insertResult(context.Background(), EvaluationResult{AccountID: f.account, AgentID: f.agent,
		CriteriaID: criterion, AgentRunID: f.run, EvaluationMode: "manual", Status: "passed"})
	return err
}

func (f resultsFixture) count(t *testing.T, criterion string) int {
	t.Helper()
	_, total, err := repo{db: f.db}.results(context.Background(), ResultFilter{AccountID: f.account, CriteriaID: criterion, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// A criterion's deletion takes its results with it, and no result is
// recorded under a criterion that is gone or another account's; on
// SQLite, where the results are in a file of their own, as on PostgreSQL.
func TestCriterionResultsFollowTheCriterion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		rp := repo{db: db}
		f := newResultsFixture(t, db, "R")
		other := newResultsFixture(t, db, "S")
		kept := f.newCriterion(t)
		for _, c := range []string{f.criterion, f.criterion, kept} {
			if err := f.push(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := other.push(f.criterion); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a result under another account's criterion: %v", err)
		}
		if err := rp.deleteCriterion(ctx, other.account, f.criterion); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account deleted the criterion: %v", err)
		}
		if err := rp.deleteCriterion(ctx, f.account, f.criterion); err != nil {
			t.Fatal(err)
		}
		if n := f.count(t, f.criterion); n != 0 {
			t.Errorf("%d results outlived their criterion", n)
		}
		if n := f.count(t, kept); n != 1 {
			t.Errorf("the other criterion has %d results, want 1", n)
		}
		if err := f.push(f.criterion); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a result under a deleted criterion: %v", err)
		}
		if err := rp.deleteCriterion(ctx, f.account, f.criterion); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted twice: %v", err)
		}
	})
}

// SQLite keeps evaluation results in agentry.results.db beside agentry.db,
// and a database from before that file moves its results into it on start.
func TestResultsFileTakesOverTheDatabasesResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "agentry.db"), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if db.ResultsPath != filepath.Join(dir, "agentry.results.db") {
		t.Fatalf("results file %s", db.ResultsPath)
	}
	if _, err := os.Stat(db.ResultsPath); err != nil {
		t.Fatal(err)
	}
	f := newResultsFixture(t, db, "M")
	if err := f.push(f.criterion); err != nil {
		t.Fatal(err)
	}
	// The table as migration 00030 left it in the database, with a
	// result of its own and a copy of the one already moved.
	if _, err := db.W.ExecContext(ctx, `CREATE TABLE evaluation_results (id TEXT PRIMARY KEY, account_id TEXT NOT NULL,
		agent_id TEXT NOT NULL, criteria_id TEXT NOT NULL, agent_run_id TEXT NOT NULL, agent_step_run_id TEXT, step_id TEXT,
		evaluation_mode TEXT NOT NULL, status TEXT NOT NULL, score DOUBLE PRECISION, flagged BOOLEAN NOT NULL,
		retry_triggered BOOLEAN NOT NULL, retry_count INTEGER NOT NULL, details TEXT, evaluated_at DATETIME NOT NULL,
		created_at DATETIME NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for _, id := range []string{store.NewID(), ""} {
		if id == "" {
			if err := db.R.QueryRowContext(ctx, `SELECT id FROM results.evaluation_results`).Scan(&id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.W.ExecContext(ctx, `INSERT INTO evaluation_results (id, account_id, agent_id, criteria_id, agent_run_id,
			evaluation_mode, status, flagged, retry_triggered, retry_count, details, evaluated_at, created_at)
			VALUES ($1, $2, $3, $4, $5, 'manual', 'failed', FALSE, FALSE, 0, '{"moved":true}', $6, $6)`,
			id, f.account, f.agent, f.criterion, f.run, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.W.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'evaluation_results'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the database still has its table: %d %v", left, err)
	}
	rs, total, err := repo{db: db}.results(ctx, ResultFilter{AccountID: f.account, CriteriaID: f.criterion, Limit: -1})
	if err != nil || total != 2 {
		t.Fatalf("%d results after the move, %v; want the one recorded and the one moved", total, err)
	}
	moved := 0
	for _, r := range rs {
		if string(r.Details) == `{"moved":true}` {
			moved++
		}
	}
	if moved != 1 {
		t.Errorf("%d moved results, want 1: %+v", moved, rs)
	}
}

// A criterion's deletion that a crash cut short between deleting the
// criterion and deleting its results (SQLite, where the two are in
// different files) is finished by FinishCriteriaDeletions; a recorded
// deletion of a criterion that still exists deletes nothing.
func TestFinishCriteriaDeletions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	rp := repo{db: db}
	f := newResultsFixture(t, db, "F")
	live := f.newCriterion(t)
	for _, c := range []string{f.criterion, live} {
		if err := f.push(c); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Results.ExecContext(ctx, `INSERT INTO criteria_deletions (criteria_id, account_id) VALUES ($1, $2)`, c, f.account); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.W.ExecContext(ctx, `DELETE FROM evaluation_criteria WHERE id = $1`, f.criterion); err != nil {
		t.Fatal(err)
	}
	if err := rp.finishCriteriaDeletions(ctx); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	rows, err := db.R.QueryContext(ctx, `SELECT criteria_id, COUNT(*) FROM evaluation_results GROUP BY criteria_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		var n int
		if err := rows.Scan(&c, &n); err != nil {
			t.Fatal(err)
		}
		counts[c] = n
	}
	rows.Close()
	if counts[f.criterion] != 0 || counts[live] != 1 {
		t.Errorf("results by criterion after finishing: %v; want none of the deleted one and one of the live one", counts)
	}
	var records int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM criteria_deletions WHERE criteria_id = $1`, f.criterion).Scan(&records); err != nil || records != 0 {
		t.Errorf("the finished deletion is still recorded: %d %v", records, err)
	}
}
