package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// A typical deterministic judgment, as the engine journals it.
var typicalJudgment = json.RawMessage(`{"checks":[{"check":"not_contains","passed":true,"detail":"the output does not contain \"confidential\""},` +
	`{"check":"min_length","passed":true,"detail":"the output has 30 characters (at least 1 wanted)"}],` +
	`"explanation":"2 of 2 expectation checks passed. Score 1.00 against a pass threshold of 1.00: passed.","pass_threshold":1}`)

// Journaled judgments are stored compressed on SQLite (as plain JSON on
// PostgreSQL) and read back as they were written: packed by the journal
// ahead of the write, packed by FinishStep when they come unpacked, and
// written as plain JSON by an earlier version.
func TestJournaledJudgmentsAreStoredCompressedOnSQLite(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		runRows := runs.NewRepo(db, PackJudgments) // as the server builds it
		rp := repo{db: db}
		accountID, criterionID, r := newJudgedRun(t, db)
		if _, err := runRows.StartRunAttempt(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		score := 1.0
		judged := time.Now().UTC().Truncate(time.Microsecond)
		want := map[string]bool{}
		journal := func(pack bool) (stepRun string, plain json.RawMessage) {
			t.Helper()
			j := StepJudgment{ID: store.NewID(), CriteriaID: criterionID, EvaluationMode: "eval_and_retry", Status: "passed",
				Score: &score, Details: typicalJudgment, EvaluatedAt: judged}
			want[j.ID] = true
			plain, _ = json.Marshal([]StepJudgment{j})
			stored := plain
			if pack {
				stored = runRows.PackJudgments(plain)
			}
			return journalStep(t, db, r.ID, accountID, stored), plain
		}
		stored := func(stepRun string) []byte {
			t.Helper()
			var b []byte
			if err := db.W.QueryRowContext(ctx, `SELECT judgments FROM run_steps WHERE id = $1`, stepRun).Scan(&b); err != nil {
				t.Fatal(err)
			}
			return b
		}
		for _, pack := range []bool{true, false} {
			stepRun, plain := journal(pack)
			got := stored(stepRun)
			if d == store.Postgres {
				if !bytes.Equal(got, plain) {
					t.Errorf("PostgreSQL stored %q, want the JSON %s", got, plain)
				}
				continue
			}
			if len(got) == 0 || got[0] == '[' || len(got) > len(plain)/3 {
				t.Errorf("pack=%v: SQLite stored %d bytes (%q) of %d bytes of judgments; want them compressed to under a third", pack, len(got), got, len(plain))
			}
			var kind string
			if err := db.W.QueryRowContext(ctx, `SELECT typeof(judgments) FROM run_steps WHERE id = $1`, stepRun).Scan(&kind); err != nil || kind != "blob" {
				t.Errorf("SQLite stored judgments as %q (%v), want a blob", kind, err)
			}
		}
		// A row an earlier version journaled, as JSON text.
		older, plain := journal(false)
		if _, err := db.W.ExecContext(ctx, `UPDATE run_steps SET judgments = $1 WHERE id = $2`, string(plain), older); err != nil {
			t.Fatal(err)
		}
		if err := runRows.FinishRunAttempt(ctx, r.ID, 1, runs.RunResult{Status: runs.RunCompleted, Judged: true}); err != nil {
			t.Fatal(err)
		}
		if n, err := rp.materializeJudgments(ctx); err != nil || n != 3 {
			t.Fatalf("materialized %d, %v; want 3", n, err)
		}
		rs, _, err := rp.results(ctx, ResultFilter{AccountID: accountID, RunID: r.ID, Limit: -1})
		if err != nil || len(rs) != 3 {
			t.Fatalf("results %+v %v", rs, err)
		}
		for _, got := range rs {
			var details, typical any
			_ = json.Unmarshal(got.Details, &details)
			_ = json.Unmarshal(typicalJudgment, &typical)
			if !want[got.ID] || got.Status != "passed" || !got.EvaluatedAt.Equal(judged) || !jsonEqual(details, typical) {
				t.Errorf("result %+v, details %s", got, got.Details)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
