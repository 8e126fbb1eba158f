package agents

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestExtrasRepo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := storetest.Account(t, db), storetest.Account(t, db)
		// Solutions are the solutions area's writes; seeded as it makes them.
		seed := func(accountID, name string) string {
			id := store.NewID()
			if _, err := db.W.ExecContext(ctx, `INSERT INTO solutions (id, account_id, name, description, created_at, updated_at)
				VALUES ($1, $2, $3, 'd', $4, $4)`, id, accountID, name, store.Now()); err != nil {
				t.Fatal(err)
			}
			return id
		}
		ops, theirs := seed(acct, "Ops"), seed(other, "Theirs")
		seed(acct, "Ops") // a later namesake: the oldest wins

		a, err := NewRepo(db).CreateAgent(ctx, NewAgent{Agent: Agent{AccountID: acct, Name: "a",
			Definition: json.RawMessage(`{"child_steps":[]}`),
			Settings:   AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}},
			Trigger: Trigger{Type: "dynamic_input"},
			EvaluationCriteria: []evalrow.Criterion{{StepID: "s", EvaluationMode: "eval_and_retry", Enabled: true,
				MaxRetries: 2, PassThreshold: 0.7, Extra: json.RawMessage(`{"k":1}`)}},
			SolutionIDs: []string{ops, theirs}})
		if err != nil {
			t.Fatal(err)
		}
		q := extrasRepo{db}
		crit, err := q.criteria(ctx, acct, a.ID)
		if err != nil || len(crit) != 1 || crit[0].StepID != "s" || crit[0].PassThreshold != 0.7 || crit[0].MaxRetries != 2 ||
			string(crit[0].Extra) != `{"k":1}` || crit[0].Description != nil || crit[0].ExpectationConfig != nil {
			t.Fatalf("criteria %+v %v", crit, err)
		}
		if c, _ := q.criteria(ctx, other, a.ID); len(c) != 0 {
			t.Fatalf("another account's criteria: %+v", c)
		}
		// A foreign solution links nothing.
		sols, err := q.agentSolutions(ctx, acct, a.ID)
		if err != nil || len(sols) != 1 || sols[0].ID != ops || sols[0].Name != "Ops" || sols[0].Description != "d" {
			t.Fatalf("solutions %+v %v", sols, err)
		}
		found, err := q.solutionsNamed(ctx, acct, []string{"Ops", "Theirs", "none"})
		if err != nil || len(found) != 1 || found["Ops"].ID != ops {
			t.Fatalf("solutions by name: %+v %v", found, err)
		}
		if found, _ := q.solutionsNamed(ctx, acct, nil); len(found) != 0 {
			t.Fatalf("no names: %+v", found)
		}
	})
}
