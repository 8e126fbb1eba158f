package alerts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func newAgent(t *testing.T, db *store.DB, accountID string) string {
	t.Helper()
	a, err := agents.NewRepo(db).CreateAgent(context.Background(), agents.NewAgent{Agent: agents.Agent{AccountID: accountID, Name: "a",
		Definition: json.RawMessage(`{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`),
		Settings:   agents.AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}},
		Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// seedAlertRows writes n alerts of an account, one a minute back from end,
// every fourth acknowledged and of agent "agent-b", the rest triggered.
func seedAlertRows(t *testing.T, db *store.DB, accountID string, n int, end time.Time) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	for i := range n {
		ids[i] = store.NewID()
		status, agent := "triggered", "agent-a"
		if i%4 == 0 {
			status, agent = "acknowledged", "agent-b"
		}
		at := end.Add(-time.Duration(i) * time.Minute)
		if _, err := db.W.ExecContext(ctx, `INSERT INTO alerts (id, account_id, alert_type, title, status, agent_id, created_at, updated_at)
			VALUES ($1, $2, 'run_failed', $3, $4, $5, $6, $6)`, ids[i], accountID, fmt.Sprintf("alert %d", i), status, agent, at); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// TestAlertsList checks the inbox's list (filters, order, totals, the
// counts read for a page at once) and that its queries are served by the
// index (account_id, created_at, id).
func TestAlertsList(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := storetest.NewAccount(t, db), storetest.NewAccount(t, db)
		r := repo{db}
		end := time.Now().UTC().Truncate(time.Second)
		ids := seedAlertRows(t, db, acct, 400, end)
		seedAlertRows(t, db, other, 400, end)
		// Two alerts at the very same instant: the newer id comes first.
		tie := []string{store.NewID(), store.NewID()}
		for _, id := range tie {
			if _, err := db.W.ExecContext(ctx, `INSERT INTO alerts (id, account_id, alert_type, title, status, created_at, updated_at)
				VALUES ($1, $2, 'slow_run', 'tie', 'resolved', $3, $3)`, id, acct, end.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		for i, id := range []string{ids[1], ids[1], ids[1], ids[2]} {
			if err := r.addComment(ctx, acct, id, "u1", fmt.Sprint("comment ", i)); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range [][2]string{{ids[1], "viewer"}, {ids[1], "u2"}, {ids[3], "u2"}} {
			if err := r.subscribeTo(ctx, acct, s[0], s[1]); err != nil {
				t.Fatal(err)
			}
		}

		page, total, err := r.list(ctx, acct, "viewer", alertFilter{}, 0, 5)
		if err != nil || total != 402 || len(page) != 5 {
			t.Fatalf("first page: %d of %d, %v", len(page), total, err)
		}
		if page[0].ID != tie[1] || page[1].ID != tie[0] || page[2].ID != ids[0] || page[3].ID != ids[1] || page[4].ID != ids[2] {
			t.Errorf("order: %s %s %s %s %s", page[0].ID, page[1].ID, page[2].ID, page[3].ID, page[4].ID)
		}
		got := func(a Alert) string {
			return fmt.Sprintf("%d/%d/%v", a.CommentCount, a.SubscriberCount, a.IsSubscribed)
		}
		if got(page[2]) != "0/0/false" || got(page[3]) != "3/2/true" || got(page[4]) != "1/0/false" {
			t.Errorf("counts: %s %s %s", got(page[2]), got(page[3]), got(page[4]))
		}
		// The same counts as an alert read alone.
		for _, a := range page {
			one, err := r.alert(ctx, acct, "viewer", a.ID)
			if err != nil || got(one) != got(a) {
				t.Errorf("alert %s alone: %s, in the list %s (%v)", a.ID, got(one), got(a), err)
			}
		}
		if p, _, _ := r.list(ctx, acct, "u2", alertFilter{}, 3, 3); len(p) != 3 || got(p[0]) != "3/2/true" || got(p[2]) != "0/1/true" {
			t.Errorf("another viewer, offset 3: %+v", p)
		}

		from, to := end.Add(-99*time.Minute), end.Add(-10*time.Minute)
		p, total, err := r.list(ctx, acct, "viewer", alertFilter{Status: "acknowledged", AgentID: "agent-b", From: &from, To: &to}, 0, 100)
		if err != nil || total != 22 || len(p) != 22 || p[0].ID != ids[12] || p[21].ID != ids[96] {
			t.Fatalf("filtered: %d of %d, %v", len(p), total, err)
		}
		if _, total, _ := r.list(ctx, acct, "viewer", alertFilter{SourceConnectionID: "none"}, 0, 10); total != 0 {
			t.Errorf("source filter: %d", total)
		}
		if p, total, _ := r.list(ctx, acct, "viewer", alertFilter{}, 500, 10); total != 402 || len(p) != 0 {
			t.Errorf("past the end: %d of %d", len(p), total)
		}

		// The plans: the page is read off the index in order, and the
		// account's count reads the index alone.
		if _, err := db.W.ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
		count, pageQ, args := alertsQueries(acct, alertFilter{})
		plan := storetest.QueryPlan(t, db, pageQ, append(args, 50, 0)...)
		t.Logf("the page's plan:\n%s", plan)
		if !strings.Contains(plan, "alerts_account_created") || strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Sort") {
			t.Errorf("the page's plan:\n%s", plan)
		}
		countPlan := storetest.QueryPlan(t, db, count, args...)
		t.Logf("the count's plan:\n%s", countPlan)
		if d == store.SQLite && !strings.Contains(countPlan, "COVERING INDEX alerts_account_created") {
			t.Errorf("the count's plan:\n%s", countPlan)
		}
		// Older than a time: the same index, from that point back.
		_, pageQ, args = alertsQueries(acct, alertFilter{To: &to})
		if plan := storetest.QueryPlan(t, db, pageQ, append(args, 50, 0)...); !strings.Contains(plan, "alerts_account_created") ||
			strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "Sort") {
			t.Errorf("an older page's plan:\n%s", plan)
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
		_, acct, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "P"})
		agent := newAgent(t, db, acct.ID)
		r := repo{db}
		for _, kind := range []struct {
			name   string
			limit  int
			refuse error
			create func(agentID string) error
		}{
			{"alert configs", MaxAlertConfigsPerScope, ErrTooManyAlertConfigs, func(agentID string) error {
				_, err := r.createConfig(ctx, AlertConfig{AccountID: acct.ID, AgentID: agentID, AlertType: "agent_run_failed",
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

// An agent import's configurations are stored in the agent's transaction
// and read back for its export, scoped by account (they were the store's
// agent extras once: internal/store's TestAgents).
func TestAgentConfigs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		u, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "u"})
		if err != nil {
			t.Fatal(err)
		}
		other := storetest.NewAccount(t, db)
		in := agents.NewAgent{Agent: agents.Agent{AccountID: acct.ID, Name: "full",
			Definition: json.RawMessage(`{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`),
			Settings:   agents.AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}},
			Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}}
		in.Also = append(in.Also, func(ctx context.Context, tx *sql.Tx, agentID string) error {
			return r.createWithAgent(ctx, tx, acct.ID, agentID, []AlertConfig{{AlertType: "agent_run_failed", Enabled: true,
				Threshold: json.RawMessage(`{"count":3}`), CooldownMinutes: 60, DistributionType: "selected_members", RecipientUserIDs: []string{u.ID}}})
		})
		a, err := agents.NewRepo(db).CreateAgent(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		alerts, err := r.ofAgent(ctx, acct.ID, a.ID)
		if err != nil || len(alerts) != 1 || alerts[0].RecipientUserIDs[0] != u.ID || string(alerts[0].Threshold) != `{"count":3}` {
			t.Fatalf("extras: %+v %v", alerts, err)
		}
		if list, _ := r.ofAgent(ctx, other, a.ID); len(list) != 0 {
			t.Fatal("another account's alerts")
		}
	})
}
