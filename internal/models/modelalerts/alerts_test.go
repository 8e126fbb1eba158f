package modelalerts_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

var ctx = context.Background()

// AcmeCatalog layers a model family over the built-in catalog, dated
// relative to base (today): acme_v1 is deprecated and retires in 20 days
// (successor acme_v2); acme_v2 is established; acme_v3 came out 10 days
// ago; acme_v3_lite lacks tool use, so it never replaces the others;
// acme_v4 is announced for later.
func acmeCatalog(t *testing.T, base time.Time) *catalog.Catalog {
	t.Helper()
	d := func(days int) string { return base.AddDate(0, 0, days).Format(time.DateOnly) }
	model := func(id string, gen float64, released string, tools bool, extra string) string {
		return fmt.Sprintf(`  - {id: %s, api_name: %s, name: %q, provider: acme, family: acme, family_generation: %g, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: %v, pricing: {input: 100, output: 200},
     released_at: %s%s}
`, id, strings.ReplaceAll(id, "_", "-"), strings.ToUpper(id), gen, tools, released, extra)
	}
	yaml := "models:\n" +
		model("acme_v1", 1, d(-500), true, fmt.Sprintf(", deprecated_at: %s, sunset_at: %s, successor_id: acme_v2", d(-100), d(20))) +
		model("acme_v2", 2, d(-200), true, "") +
		model("acme_v3", 3, d(-10), true, "") +
		model("acme_v3_lite", 3.5, d(-5), false, "") +
		model("acme_v4", 4, d(200), true, "")
	c, err := catalog.Load([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type fixture struct {
	db   *store.DB
	svc  *modelalerts.Service
	base time.Time
	now  time.Time
}

func setup(t *testing.T, d store.Dialect) *fixture {
	db := storetest.Open(t, d)
	f := &fixture{db: db, base: time.Now().UTC()}
	f.now = f.base
	f.svc = modelalerts.New(db, acmeCatalog(t, f.base), agents.NewRepo(db), nil)
	f.svc.Now = func() time.Time { return f.now }
	return f
}

func (f *fixture) at(days int) { f.now = f.base.AddDate(0, 0, days) }

func (f *fixture) account(t *testing.T) string {
	t.Helper()
	_, a, err := directory.CreateUser(ctx, f.db, directory.NewUser{Name: "u", OpeningCredits: 10})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// agentDef has two prompt_call steps on prompt and an extract_data step
// on other (which auto-upgrade must leave alone).
func agentDef(prompt, other string) string {
	return fmt.Sprintf(`{"child_steps":[
		{"id":"ask","step_type":"prompt_call","model":%q,"prompt_template":"{{input}}","child_steps":[
			{"id":"refine","step_type":"prompt_call","model":%q,"prompt_template":"Refine: {{input}}","temperature":0.2}]},
		{"id":"dig","step_type":"extract_data","model":%q,"prompt_template":"{{input}}"}]}`, prompt, prompt, other)
}

func (f *fixture) agent(t *testing.T, accountID, def string, st agents.AgentSettings) string {
	t.Helper()
	if st.EvaluationMode == "" {
		st.EvaluationMode, st.MaxRetries = "output_expectation", 3
	}
	a, err := agents.NewRepo(f.db).CreateAgent(ctx, agents.NewAgent{
		Agent:   agents.Agent{AccountID: accountID, Name: "Researcher", Definition: json.RawMessage(def), Settings: st},
		Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// models returns each step's model.
func (f *fixture) models(t *testing.T, accountID, agentID string) map[string]string {
	t.Helper()
	a, err := agents.NewRepo(f.db).Agent(ctx, accountID, agentID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(steps []map[string]any)
	walk = func(steps []map[string]any) {
		for _, s := range steps {
			if m, ok := s["model"].(string); ok {
				out[s["id"].(string)] = m
			}
			var kids []map[string]any
			b, _ := json.Marshal(s["child_steps"])
			_ = json.Unmarshal(b, &kids)
			walk(kids)
		}
	}
	var d struct {
		Steps []map[string]any `json:"child_steps"`
	}
	if err := json.Unmarshal(a.Definition, &d); err != nil {
		t.Fatal(err)
	}
	walk(d.Steps)
	return out
}

func (f *fixture) alertsOf(t *testing.T, accountID string) []modelalerts.ModelAlert {
	t.Helper()
	list, _, err := f.svc.List(ctx, accountID, modelalerts.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestCheckAgentRaisesEachAlertOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := setup(t, d)
		acct, other := f.account(t), f.account(t)
		agent := f.agent(t, acct, agentDef("acme_v1", "acme-v2"), agents.AgentSettings{ModelUpgradeStrategy: "none"})
		quiet := f.agent(t, acct, agentDef("acme_v3_lite", "agentry_offline"), agents.AgentSettings{ModelUpgradeStrategy: "none"})

		n, err := f.svc.CheckAgent(ctx, acct, agent)
		if err != nil || n != 2 {
			t.Fatalf("CheckAgent = %d, %v; want 2 alerts", n, err)
		}
		byType := map[string]modelalerts.ModelAlert{}
		for _, a := range f.alertsOf(t, acct) {
			byType[a.Type] = a
		}
		sunset, newer := byType["model_sunset"], byType["model_newer_available"]
		if sunset.ModelID != "acme_v1" || sunset.AgentID != agent || sunset.SuccessorModelID != "acme_v2" ||
			!strings.Contains(sunset.Message, "in 20 days") || !strings.Contains(sunset.Message, `Agent "Researcher"`) {
			t.Errorf("sunset alert: %+v", sunset)
		}
		// extract_data counts as a use: acme-v2 (its API name) has a newer sibling.
		if newer.ModelID != "acme_v2" || !strings.HasPrefix(newer.SuccessorModelID, "acme_v3") || newer.ReadAt != nil {
			t.Errorf("newer alert: %+v", newer)
		}
		// Same facts: nothing new, from a save or the daily sweep alike.
		if n, err := f.svc.CheckAgent(ctx, acct, agent); err != nil || n != 0 {
			t.Errorf("second check = %d, %v", n, err)
		}
		if n, err := f.svc.CheckAgent(ctx, acct, quiet); err != nil || n != 0 {
			t.Errorf("agent on current models = %d, %v", n, err)
		}
		// Once the model is retired, that is news.
		f.at(21)
		if n, _ := f.svc.CheckAgent(ctx, acct, agent); n != 1 {
			t.Errorf("after the sunset = %d new alerts, want 1", n)
		}
		if list := f.alertsOf(t, acct); len(list) != 3 || !strings.Contains(list[0].Message, "calls to it fail") {
			t.Errorf("newest first: %+v", list)
		}
		// Another account's agent is not found, and it sees nothing.
		if _, err := f.svc.CheckAgent(ctx, other, agent); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account's agent: %v", err)
		}
		if len(f.alertsOf(t, other)) != 0 {
			t.Error("alerts leaked to another account")
		}

		// Filters, counts and dismissal.
		if list, total, _ := f.svc.List(ctx, acct, modelalerts.Query{AgentID: quiet, Limit: 10}); len(list) != 0 || total != 0 {
			t.Errorf("agent filter: %d", total)
		}
		if list, total, _ := f.svc.List(ctx, acct, modelalerts.Query{Limit: 1, Offset: 1}); len(list) != 1 || total != 3 {
			t.Errorf("paging: %d of %d", len(list), total)
		}
		if n, _ := f.svc.UnreadCount(ctx, acct); n != 3 {
			t.Errorf("unread = %d", n)
		}
		if err := f.svc.MarkRead(ctx, other, sunset.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account marks read: %v", err)
		}
		if err := f.svc.MarkRead(ctx, acct, sunset.ID); err != nil {
			t.Fatal(err)
		}
		if list, total, _ := f.svc.List(ctx, acct, modelalerts.Query{UnreadOnly: true, Limit: 10}); total != 2 || len(list) != 2 {
			t.Errorf("unread only: %d", total)
		}
		if n, err := f.svc.MarkAllRead(ctx, acct); err != nil || n != 2 {
			t.Errorf("mark all = %d, %v", n, err)
		}
		if n, _ := f.svc.UnreadCount(ctx, acct); n != 0 {
			t.Errorf("unread after mark all = %d", n)
		}
	})
}

func TestUpgradeStrategies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := setup(t, d)
		acct := f.account(t)
		mk := func(model, strategy string) string {
			return f.agent(t, acct, agentDef(model, model), agents.AgentSettings{ModelUpgradeStrategy: strategy})
		}
		early, middle, middleDep := mk("acme_v2", "early_adopter"), mk("acme_v2", "middle_of_road"), mk("acme_v1", "middle_of_road")
		cautious, cautiousV2, none := mk("acme_v1", "cautious_adopter"), mk("acme_v2", "cautious_adopter"), mk("acme_v1", "none")

		want := func(agent, prompt, other string, changes int) {
			t.Helper()
			ch, err := f.svc.UpgradeAgent(ctx, acct, agent)
			if err != nil || len(ch) != changes {
				t.Fatalf("UpgradeAgent = %+v, %v; want %d changes", ch, err, changes)
			}
			m := f.models(t, acct, agent)
			if m["ask"] != prompt || m["refine"] != prompt || m["dig"] != other {
				t.Fatalf("models after upgrade: %v, want prompt steps on %s and dig on %s", m, prompt, other)
			}
		}
		want(early, "acme_v3", "acme_v2", 1)      // newest compatible; v3_lite lacks tools, v4 is not out
		want(early, "acme_v3", "acme_v2", 0)      // and it stays
		want(middle, "acme_v2", "acme_v2", 0)     // v3 has not settled for 30 days
		want(middleDep, "acme_v2", "acme_v1", 1)  // off a deprecated model at once, to its successor
		want(cautious, "acme_v2", "acme_v1", 1)   // within 30 days of the sunset
		want(cautiousV2, "acme_v2", "acme_v2", 0) // no sunset, no move
		f.at(25)
		want(none, "acme_v1", "acme_v1", 0) // never, even past the sunset
		f.at(21)
		want(middle, "acme_v3", "acme_v2", 1)

		// The change is visible: an alert, a definition history entry,
		// and the upgrade record.
		var up modelalerts.ModelAlert
		for _, a := range f.alertsOf(t, acct) {
			if a.Type == modelalerts.TypeAutoUpgraded && a.AgentID == early {
				up = a
			}
		}
		if up.ModelID != "acme_v2" || up.SuccessorModelID != "acme_v3" || !strings.Contains(up.Message, "early adopter") {
			t.Errorf("upgrade alert: %+v", up)
		}
		if h, err := agents.DefinitionHistory(ctx, f.db, acct, early); err != nil || len(h) != 1 || !strings.Contains(string(h[0].Definition), "acme_v2") {
			t.Errorf("history: %d %v", len(h), err)
		}
		ups, _ := f.svc.StoredUpgrades(ctx, acct, early)
		if len(ups) != 1 || len(ups[0].StepIDs) != 2 || ups[0].FromModel != "acme_v2" {
			t.Errorf("upgrade record: %+v", ups)
		}
	})
}

func TestRollbackOnFailedRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := setup(t, d)
		acct := f.account(t)
		agent := f.agent(t, acct, agentDef("acme_v2", "acme_v2"), agents.AgentSettings{ModelUpgradeStrategy: "early_adopter",
			ModelRollbackEnabled: true})
		f.now = time.Now().UTC().Add(-time.Hour)
		if ch, err := f.svc.UpgradeAgent(ctx, acct, agent); err != nil || len(ch) != 1 {
			t.Fatalf("upgrade: %+v %v", ch, err)
		}
		// A flag is not a default trigger.
		if err := f.svc.RecordSignal(ctx, acct, agent, lifecycle.SignalGovernanceFlag, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.RecordSignal(ctx, acct, agent, "bogus", time.Time{}); err == nil {
			t.Error("unknown signal accepted")
		}
		f.now = time.Now().UTC().Add(time.Hour)
		if ch, _ := f.svc.UpgradeAgent(ctx, acct, agent); len(ch) != 0 {
			t.Fatalf("a governance flag rolled back: %+v", ch)
		}
		// A run of the agent fails.
		run, err := runs.NewRepo(f.db, nil).CreateRun(ctx, runs.Run{AccountID: acct, AgentID: agent})
		if err != nil {
			t.Fatal(err)
		}
		att, err := runs.NewRepo(f.db, nil).StartRunAttempt(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := runs.NewRepo(f.db, nil).FinishRunAttempt(ctx, run.ID, att, runs.RunResult{Status: runs.RunFailed, Error: "boom"}); err != nil {
			t.Fatal(err)
		}
		ch, err := f.svc.UpgradeAgent(ctx, acct, agent)
		if err != nil || len(ch) != 1 || !ch[0].Rollback || ch[0].To != "acme_v2" {
			t.Fatalf("rollback: %+v %v", ch, err)
		}
		if m := f.models(t, acct, agent); m["ask"] != "acme_v2" || m["refine"] != "acme_v2" {
			t.Fatalf("after rollback: %v", m)
		}
		found := false
		for _, a := range f.alertsOf(t, acct) {
			found = found || a.Type == modelalerts.TypeAutoRolledBack && strings.Contains(a.Message, "agent_run_failed")
		}
		if !found {
			t.Error("no rollback alert")
		}
		// It is not upgraded to the same model again.
		if ch, _ := f.svc.UpgradeAgent(ctx, acct, agent); len(ch) != 0 {
			t.Errorf("re-upgraded after rollback: %+v", ch)
		}
		if m := f.models(t, acct, agent); m["ask"] != "acme_v2" {
			t.Errorf("models: %v", m)
		}
	})
}

func TestRollbackBlockedAndSweeps(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := setup(t, d)
		acct, acct2 := f.account(t), f.account(t)
		// An upgrade off acme_v1 the day before its sunset, then an
		// evaluation fails after the sunset: there is nothing to go back to.
		agent := f.agent(t, acct, agentDef("acme_v2", "acme_v2"), agents.AgentSettings{ModelUpgradeStrategy: "none",
			ModelRollbackEnabled: true, ModelRollbackTriggers: []string{"agent_eval_fail"}})
		if _, err := f.svc.StoreUpgrade(ctx, modelalerts.ModelUpgrade{AccountID: acct, AgentID: agent, FromModel: "acme_v1",
			ToModel: "acme_v2", StepIDs: []string{"ask", "refine"}, UpgradedAt: f.base.AddDate(0, 0, 19)}); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.RecordSignal(ctx, acct, agent, lifecycle.SignalEvalFail, f.base.AddDate(0, 0, 21)); err != nil {
			t.Fatal(err)
		}
		f.at(22)
		if ch, err := f.svc.UpgradeAgent(ctx, acct, agent); err != nil || len(ch) != 0 {
			t.Fatalf("blocked rollback changed something: %+v %v", ch, err)
		}
		blocked := 0
		for _, a := range f.alertsOf(t, acct) {
			if a.Type == modelalerts.TypeRollbackBlocked {
				blocked++
			}
		}
		if blocked != 1 || f.models(t, acct, agent)["ask"] != "acme_v2" {
			t.Errorf("blocked alerts %d, models %v", blocked, f.models(t, acct, agent))
		}

		// An empty trigger list never rolls back.
		off := f.agent(t, acct2, agentDef("acme_v2", "acme_v2"), agents.AgentSettings{ModelUpgradeStrategy: "early_adopter",
			ModelRollbackEnabled: true, ModelRollbackTriggers: []string{}})
		f.at(0)
		// The sweeps go over every account's agents.
		if n, err := f.svc.UpgradeAll(ctx); err != nil || n != 2 {
			t.Fatalf("UpgradeAll = %d, %v", n, err)
		}
		if m := f.models(t, acct2, off); m["ask"] != "acme_v3" {
			t.Fatalf("sweep did not upgrade: %v", m)
		}
		_ = f.svc.RecordSignal(ctx, acct2, off, lifecycle.SignalEvalFail, time.Time{})
		f.now = f.now.Add(time.Hour)
		if n, err := f.svc.UpgradeAll(ctx); err != nil || n != 2 || f.models(t, acct2, off)["ask"] != "acme_v3" {
			t.Fatalf("empty trigger list rolled back (%d, %v)", n, err)
		}
		if n, err := f.svc.CheckAll(ctx); err != nil || n != 2 {
			t.Fatalf("CheckAll = %d, %v", n, err)
		}
		if len(f.alertsOf(t, acct2)) == 0 {
			t.Error("the sweep raised nothing for the second account")
		}
	})
}
