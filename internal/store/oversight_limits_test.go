package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Alert configurations are bounded per scope: the account's own, and each
// agent's (governance policies: internal/governance's repo_test.go).
func TestPerScopeLimits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, acct, _ := db.CreateUser(ctx, store.NewUser{Name: "P"})
		agent := storetest.JudgedAgent(t, db, acct.ID)
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
