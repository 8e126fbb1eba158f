package evals

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Judgments recorded at the same time share transactions, each caller
// gets its own rows back, and a result whose criterion is gone fails
// only its own step's record.
func TestRecordGroupCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, acct, err := db.CreateUser(ctx, store.NewUser{Name: "judge", OpeningCredits: 1})
		if err != nil {
			t.Fatal(err)
		}
		a, err := db.CreateAgent(ctx, store.NewAgent{Agent: store.Agent{AccountID: acct.ID, Name: "a",
			Definition: json.RawMessage(`{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`),
			Settings:   store.AgentSettings{EvaluationMode: ModeRetry, ModelUpgradeStrategy: "none"}},
			Trigger: store.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
		if err != nil {
			t.Fatal(err)
		}
		step := "s"
		c, err := db.CreateEvaluationCriterion(ctx, store.EvaluationCriterion{AccountID: acct.ID, AgentID: a.ID, StepID: step,
			EvaluationMode: ModeRetry, Enabled: true, PassThreshold: 1})
		if err != nil {
			t.Fatal(err)
		}
		s := &Service{DB: db}
		res := func(criterion string) store.EvaluationResult {
			return store.EvaluationResult{AccountID: acct.ID, AgentID: a.ID, CriteriaID: criterion, AgentRunID: store.NewID(),
				StepID: "s", EvaluationMode: ModeRetry, Status: "passed"}
		}
		const n = 40
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				criterion := c.ID
				if i%10 == 3 {
					criterion = store.NewID() // no such criterion
				}
				want := res(criterion)
				got, err := s.record(ctx, []store.EvaluationResult{want, res(c.ID)})
				if err == nil && (len(got) != 2 || got[0].AgentRunID != want.AgentRunID || got[0].ID == "") {
					err = errors.New("wrong rows back")
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if (i%10 == 3) != (err != nil) {
				t.Errorf("caller %d: %v", i, err)
			}
		}
		var rows int
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM evaluation_results WHERE account_id = $1`, acct.ID).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if want := 2 * (n - n/10); rows != want {
			t.Fatalf("%d rows, want %d", rows, want)
		}
	})
}
