package evals

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// An agent holds at most evalrow.MaxCriteriaPerAgent criteria, also when creates
// race for the last place; other agents are not affected.
func TestCriteriaPerAgentLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		rp := repo{db: db}
		_, acct, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "L"})
		full, other := storetest.JudgedAgent(t, db, acct.ID), storetest.JudgedAgent(t, db, acct.ID)
		create := func(agentID string) error {
			_, err := rp.createCriterion(ctx, EvaluationCriterion{AccountID: acct.ID, AgentID: agentID, StepID: "s",
				EvaluationMode: "eval_and_retry", Enabled: true, PassThreshold: 1})
			return err
		}
		for range evalrow.MaxCriteriaPerAgent - 1 {
			if err := create(full); err != nil {
				t.Fatal(err)
			}
		}
		var (
			wg                    sync.WaitGroup
			mu                    sync.Mutex
			created, refused, bad int
		)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := create(full)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case errors.Is(err, ErrTooManyCriteria):
					refused++
				default:
					bad++
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if created != 1 || refused != 3 || bad != 0 {
			t.Errorf("racing for the last place: %d created, %d refused", created, refused)
		}
		if _, total, err := rp.criteriaPage(ctx, acct.ID, full, 0, 1); err != nil || total != evalrow.MaxCriteriaPerAgent {
			t.Errorf("the full agent holds %d criteria, %v", total, err)
		}
		if err := create(other); err != nil {
			t.Errorf("another agent of the account: %v", err)
		}
	})
}
