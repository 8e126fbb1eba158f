package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// An agent holds at most MaxCriteriaPerAgent criteria, also when creates
// race for the last place; other agents are not affected.
func TestCriteriaPerAgentLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, acct, _ := db.CreateUser(ctx, store.NewUser{Name: "L"})
		full, other := judgedAgent(t, db, acct.ID), judgedAgent(t, db, acct.ID)
		create := func(agentID string) error {
			_, err := db.CreateEvaluationCriterion(ctx, store.EvaluationCriterion{AccountID: acct.ID, AgentID: agentID, StepID: "s",
				EvaluationMode: "eval_and_retry", Enabled: true, PassThreshold: 1})
			return err
		}
		for range store.MaxCriteriaPerAgent - 1 {
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
				case errors.Is(err, store.ErrTooManyCriteria):
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
		if _, total, err := db.EvaluationCriteriaPage(ctx, acct.ID, full, 0, 1); err != nil || total != store.MaxCriteriaPerAgent {
			t.Errorf("the full agent holds %d criteria, %v", total, err)
		}
		if err := create(other); err != nil {
			t.Errorf("another agent of the account: %v", err)
		}
	})
}

// Alert configurations are bounded per scope: the account's own, and each
// agent's (governance policies: internal/governance's repo_test.go).
func TestPerScopeLimits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, acct, _ := db.CreateUser(ctx, store.NewUser{Name: "P"})
		agent := judgedAgent(t, db, acct.ID)
		for _, kind := range []struct {
			name   string
			limit  int
			refuse error
			create func(agentID string) error
		}{
			{"alert configs", store.MaxAlertConfigsPerScope, store.ErrTooManyAlertConfigs, func(agentID string) error {
				_, err := db.CreateAlertConfig(ctx, store.AlertConfig{AccountID: acct.ID, AgentID: agentID, AlertType: "agent_run_failed",
					Enabled: true, CooldownMinutes: 60, DistributionType: "owner"})
				return err
			}},
		} {
			for _, scope := range []string{"", agent} {
				for range kind.limit {
					if err := kind.create(scope); err != nil {
						t.Fatal(kind.name, err)
					}
				}
				if err := kind.create(scope); !errors.Is(err, kind.refuse) {
					t.Errorf("%s of scope %q past the limit: %v", kind.name, scope, err)
				}
			}
		}
	})
}
