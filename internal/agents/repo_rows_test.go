package agents

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func newAgent(accountID, name string, calls ...string) NewAgent {
	return NewAgent{
		Agent: Agent{AccountID: accountID, Name: name, SchemaVersion: "v1", Definition: json.RawMessage(`{"child_steps":[]}`),
			Settings:    AgentSettings{EvaluationMode: "eval_and_retry", MaxRetries: 3, RetryOnFailure: true, ModelUpgradeStrategy: "none"},
			CallTargets: calls},
		Trigger: Trigger{Type: "dynamic_input"},
	}
}

func TestAgentRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		rows := NewRepo(db)
		u, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "owner"})
		if err != nil {
			t.Fatal(err)
		}
		_, other, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "other"})
		sol := seedSolution(t, db, acct.ID, "Ops")
		foreignSol := seedSolution(t, db, other.ID, "Theirs")

		// Everything an import brings, in one transaction.
		tier := "fast"
		next := store.Now().Add(time.Hour)
		in := newAgent(acct.ID, "full")
		in.Agent.CreatedBy = u.ID
		in.Agent.Settings.DefaultEvaluationTier = &tier
		in.Agent.Settings.SamplingConfig = json.RawMessage(`{"combinator":"and","rules":[]}`)
		in.Agent.Settings.ModelRollbackTriggers = []string{}
		in.Trigger = Trigger{Type: "schedule", Config: json.RawMessage(`{"name":"n"}`), Schedules: []Schedule{
			{CronExpression: "0 6 * * 1", Timezone: "Europe/Paris", Enabled: true, Extra: json.RawMessage(`{"note":"x"}`), NextRunAt: &next}}}
		in.EvaluationCriteria = []evalrow.Criterion{{StepID: "s", EvaluationMode: "eval_and_retry", Enabled: true, MaxRetries: 2, PassThreshold: 0.7}}
		// Another area's write (alerts' configurations, governance's
		// policies: their repo_test.go) runs in the agent's transaction,
		// with its id.
		var alsoSaw int
		in.Also = append(in.Also, func(ctx context.Context, tx *sql.Tx, agentID string) error {
			return tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1`, agentID).Scan(&alsoSaw)
		})
		in.SolutionIDs = []string{sol, foreignSol}
		a, err := rows.CreateAgent(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rows.Agent(ctx, acct.ID, a.ID)
		if err != nil || got.Name != "full" || got.TriggerType != "schedule" || got.TriggerID == "" || got.ChangeID == "" || got.CreatedBy != u.ID ||
			*got.Settings.DefaultEvaluationTier != "fast" || string(got.Settings.SamplingConfig) != `{"combinator":"and","rules":[]}` ||
			got.Settings.ModelRollbackTriggers == nil || len(got.Settings.ModelRollbackTriggers) != 0 || got.Description != nil {
			t.Fatalf("agent %+v %v", got, err)
		}
		trig, err := rows.AgentTrigger(ctx, acct.ID, a.ID)
		if err != nil || string(trig.Config) != `{"name":"n"}` || len(trig.Schedules) != 1 || trig.Schedules[0].Timezone != "Europe/Paris" ||
			!trig.Schedules[0].Enabled || string(trig.Schedules[0].Extra) != `{"note":"x"}` || !trig.Schedules[0].NextRunAt.Equal(next) {
			t.Fatalf("trigger %+v %v", trig, err)
		}
		// The extras are read back in repo_extras_test.go;
		// here, that each was written in the agent's transaction.
		var crit, sols int
		_ = db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM evaluation_criteria WHERE agent_id = $1 AND pass_threshold = 0.7`, a.ID).Scan(&crit)
		_ = db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM solution_agents WHERE agent_id = $1 AND solution_id = $2`, a.ID, sol).Scan(&sols)
		if crit != 1 || alsoSaw != 1 || sols != 1 {
			t.Fatalf("extras: %d %d %d", crit, alsoSaw, sols)
		}
		// A failing write of another area stores nothing of the agent.
		failing := newAgent(acct.ID, "not stored")
		failing.Also = append(failing.Also, func(context.Context, *sql.Tx, string) error { return errors.New("refused") })
		if _, err := rows.CreateAgent(ctx, failing); err == nil || err.Error() != "refused" {
			t.Fatalf("a failing write of another area: %v", err)
		}

		// Scoped by account.
		if _, err := rows.Agent(ctx, other.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account's agent: %v", err)
		}
		if _, err := rows.AgentTrigger(ctx, other.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account's trigger: %v", err)
		}
		// The settings alone, as the evaluations read them.
		if st, err := rows.AgentSettings(ctx, acct.ID, a.ID); err != nil || st.DefaultEvaluationTier == nil || *st.DefaultEvaluationTier != "fast" ||
			st.MaxRetries != 3 || st.EvaluationMode != "eval_and_retry" {
			t.Fatalf("settings %+v %v", st, err)
		}
		if _, err := rows.AgentSettings(ctx, other.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account's settings: %v", err)
		}

		// An agent of an account that does not exist is refused.
		if _, err := rows.CreateAgent(ctx, newAgent(store.NewID(), "no account")); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("agent of a missing account: %v", err)
		}
		if _, total, _ := rows.Agents(ctx, acct.ID, 0, 10); total != 1 {
			t.Fatalf("total %d", total)
		}

		// Definition updates keep history and the call list.
		callee, err := rows.CreateAgent(ctx, newAgent(acct.ID, "callee"))
		if err != nil {
			t.Fatal(err)
		}
		old := got.ChangeID
		upd, err := rows.UpdateAgent(ctx, acct.ID, a.ID, u.ID, func(a *Agent) error {
			a.Definition = json.RawMessage(`{"child_steps":[{"id":"c"}]}`)
			a.CallTargets = []string{callee.ID, callee.ID}
			a.Name = "renamed"
			return nil
		})
		if err != nil || upd.ChangeID == old || upd.Name != "renamed" || upd.DefinitionSavedBy != u.ID {
			t.Fatalf("update %+v %v", upd, err)
		}
		hist, err := DefinitionHistory(ctx, db, acct.ID, a.ID)
		if err != nil || len(hist) != 1 || hist[0].ChangeID != old || string(hist[0].Definition) != `{"child_steps":[]}` || hist[0].ReplacedBy != u.ID {
			t.Fatalf("history %+v %v", hist, err)
		}
		callers, err := rows.AgentCallers(ctx, acct.ID, callee.ID)
		if err != nil || len(callers) != 1 || callers[0].ID != a.ID || callers[0].Name != "renamed" {
			t.Fatalf("callers %+v %v", callers, err)
		}
		// A metadata-only update keeps the change id and writes no history.
		same, _ := rows.UpdateAgent(ctx, acct.ID, a.ID, u.ID, func(a *Agent) error { a.Name = "again"; return nil })
		if same.ChangeID != upd.ChangeID {
			t.Fatal("a metadata update renewed the change id")
		}
		if hist, _ := DefinitionHistory(ctx, db, acct.ID, a.ID); len(hist) != 1 {
			t.Fatalf("history grew on a metadata update: %d", len(hist))
		}
		// An edit's error aborts the update and is returned as is.
		if _, err := rows.UpdateAgent(ctx, acct.ID, a.ID, u.ID, func(a *Agent) error {
			a.Name = "lost"
			return ErrStaleChange
		}); !errors.Is(err, ErrStaleChange) {
			t.Fatalf("edit error: %v", err)
		}
		if g, _ := rows.Agent(ctx, acct.ID, a.ID); g.Name != "again" {
			t.Fatalf("an aborted update wrote: %s", g.Name)
		}
		if _, err := rows.UpdateAgent(ctx, other.ID, a.ID, "", func(*Agent) error { return nil }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update across accounts: %v", err)
		}

		// A caller blocks pausing its callee; a paused caller does not.
		if _, blocking, err := rows.DisableAgent(ctx, acct.ID, callee.ID, u.ID, "manual"); err != nil || len(blocking) != 1 {
			t.Fatalf("disable with a caller: %v %v", blocking, err)
		}
		if p, blocking, err := rows.DisableAgent(ctx, acct.ID, a.ID, u.ID, "manual"); err != nil || len(blocking) != 0 || !p.Disabled() || p.DisabledReason != "manual" || p.DisabledBy != u.ID {
			t.Fatalf("disable: %+v %v %v", p, blocking, err)
		}
		if p, blocking, err := rows.DisableAgent(ctx, acct.ID, callee.ID, u.ID, "manual"); err != nil || len(blocking) != 0 || !p.Disabled() {
			t.Fatalf("disable after the caller: %v %v", blocking, err)
		}
		if e, err := rows.EnableAgent(ctx, acct.ID, callee.ID, u.ID); err != nil || e.Disabled() || e.DisabledReason != "" {
			t.Fatalf("enable %+v %v", e, err)
		}

		// Soft delete is tested in repo_agents_test.go.
		if _, err := rows.EnableAgent(ctx, acct.ID, a.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		names, _ := rows.AgentNames(ctx, acct.ID)
		if len(names) != 2 {
			t.Fatalf("names %+v", names)
		}
	})
}

// seedSolution adds a solution to an account as the solutions area does
// (internal/solutions keeps that write): what an import links agents to.
func seedSolution(t *testing.T, db *store.DB, accountID, name string) string {
	t.Helper()
	id := store.NewID()
	if _, err := db.W.ExecContext(context.Background(), `INSERT INTO solutions (id, account_id, name, description, created_at, updated_at)
		VALUES ($1, $2, $3, '', $4, $4)`, id, accountID, name, store.Now()); err != nil {
		t.Fatal(err)
	}
	return id
}
