package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/testserver"
)

// Alerts: A's configs, alerts, threads, webhooks and delivery logs are
// A's; B neither sees nor changes them, and B's signals never raise A's
// configs. Organization preferences are the caller's own, in
// organizations the caller manages.

// alConfigOfA gives A an agent, a governance_blocked config on it (with a
// webhook) and an open alert from it, with a comment.
func alConfigOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	ctx := context.Background()
	agent := c.StoreAgent(t, c.A.AccountID, "A's agent", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")
	svc := c.S.Alerts
	cfg, err := svc.CreateConfig(ctx, c.A.AccountID, alerts.ConfigInput{AlertType: "governance_blocked", AgentID: &agent})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.S.Secrets.Put(ctx, c.A.AccountID, "A_HOOK", ptrTo("a"), []string{"127.0.0.1:9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetWebhook(ctx, c.A.AccountID, cfg.ID, "http://127.0.0.1:9/a", "A_HOOK"); err != nil {
		t.Fatal(err)
	}
	if err := svc.Raise(ctx, alerts.Signal{AccountID: c.A.AccountID, Type: "governance_blocked", AgentID: agent, Message: "A's alert"}); err != nil {
		t.Fatal(err)
	}
	list, _, err := svc.Alerts(ctx, c.A.AccountID, c.A.UserID, alerts.AlertQuery{Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("A's alert: %v %v", list, err)
	}
	if _, err := svc.Comment(ctx, c.A.AccountID, c.A.UserID, list[0].ID, "A's comment"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RecordDelivery(ctx, alerts.AlertDelivery{AccountID: c.A.AccountID, AlertID: list[0].ID, ConfigID: cfg.ID,
		Event: "alert.triggered", Channel: "webhook", Target: "http://127.0.0.1:9/a", Status: "delivered"}); err != nil {
		t.Fatal(err)
	}
	return Vars{"config_id": cfg.ID, "alert_id": list[0].ID, "agent_id": agent}
}

// alStateOfA checks A's config and alert are as Setup left them.
func alStateOfA(t testing.TB, c *Ctx) {
	t.Helper()
	ctx := context.Background()
	cfg, err := c.S.Alerts.Config(ctx, c.A.AccountID, c.Vars["config_id"])
	if err != nil || !cfg.Enabled || cfg.CooldownMinutes != 60 || cfg.WebhookURL != "http://127.0.0.1:9/a" {
		t.Errorf("A's config changed: %+v %v", cfg, err)
	}
	d, err := c.S.Alerts.Detail(ctx, c.A.AccountID, c.A.UserID, c.Vars["alert_id"])
	a := d.Alert
	if err != nil || a.Status != "triggered" || a.CommentCount != 1 || a.SubscriberCount != 1 || !a.IsSubscribed {
		t.Errorf("A's alert changed: %+v %v", a, err)
	}
}

func notFoundAndIntact() Expectation {
	return func(t testing.TB, c *Ctx, r testserver.Response) {
		t.Helper()
		NotFound()(t, c, r)
		alStateOfA(t, c)
	}
}

// alOrgOfA makes an organization A's user owns.
func alOrgOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	org, err := directory.CreateOrganization(context.Background(), c.DB, "A's org", c.A.UserID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.S.Alerts.SetPreference(context.Background(), c.A.UserID, org.ID, "run_burst", false); err != nil {
		t.Fatal(err)
	}
	return Vars{"organization_id": org.ID}
}

func init() {
	register(
		Case{Op: "GET /alerts", Name: "B lists alerts", Setup: alConfigOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "GET /alerts", Name: "B filters by A's agent", Setup: alConfigOfA, Path: "/alerts?agent_id={agent_id}",
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "GET /alerts/configs", Name: "B lists A's agent's configs", Setup: alConfigOfA, Path: "/alerts/configs?agent_id={agent_id}",
			Expect: Status(http.StatusOK, EmptyList("configs")), Control: Status(http.StatusOK, NonEmptyList("configs"))},
		Case{Op: "POST /alerts/configs", Name: "B configures A's agent", Setup: alConfigOfA,
			Body: func(v Vars) any { return map[string]any{"alert_type": "run_failed", "agent_id": v["agent_id"]} },
			Expect: Status(http.StatusUnprocessableEntity, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				if _, n, _ := c.S.Alerts.Configs(context.Background(), c.B.AccountID, alerts.ConfigQuery{AgentID: c.Vars["agent_id"], Limit: 10}); n != 0 {
					t.Errorf("B has %d configs on A's agent", n)
				}
			}),
			Control: Status(http.StatusCreated)},
		Case{Op: "POST /alerts/configs", Name: "B's signal does not raise A's config", Setup: alConfigOfA,
			Body: map[string]any{"alert_type": "governance_blocked"},
			Expect: Status(http.StatusCreated, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				_ = c.S.Alerts.Raise(context.Background(), alerts.Signal{AccountID: c.B.AccountID, Type: "governance_blocked", AgentID: c.Vars["agent_id"]})
				if _, n, _ := c.S.Alerts.Alerts(context.Background(), c.B.AccountID, "", alerts.AlertQuery{Limit: 10}); n != 1 {
					t.Errorf("B's own account-level config should have raised B's alert: %d", n)
				}
				d, _ := c.S.Alerts.Detail(context.Background(), c.A.AccountID, "", c.Vars["alert_id"])
				if d.Alert.Details["occurrences"] != 1.0 {
					t.Errorf("B's signal counted on A's alert: %v", d.Alert.Details)
				}
			}),
			NoControl: true},
		Case{Op: "GET /alerts/configs/{config_id}", Name: "B reads A's config", Setup: alConfigOfA, Expect: notFoundAndIntact()},
		Case{Op: "PATCH /alerts/configs/{config_id}", Name: "B disables A's config", Setup: alConfigOfA,
			Body: map[string]any{"enabled": false, "cooldown_minutes": 1}, Expect: notFoundAndIntact()},
		Case{Op: "DELETE /alerts/configs/{config_id}", Name: "B deletes A's config", Setup: alConfigOfA, Expect: notFoundAndIntact(),
			Control: Status(http.StatusNoContent)},
		Case{Op: "GET /alerts/configs/{config_id}/webhook", Name: "B reads A's webhook", Setup: alConfigOfA, Expect: notFoundAndIntact()},
		Case{Op: "PUT /alerts/configs/{config_id}/webhook", Name: "B redirects A's webhook", Setup: func(t *testing.T, c *Ctx) Vars {
			v := alConfigOfA(t, c)
			if _, _, err := c.S.Secrets.Put(context.Background(), c.B.AccountID, "A_HOOK", ptrTo("b"), []string{"127.0.0.1:9"}); err != nil {
				t.Fatal(err)
			}
			return v
		}, Body: map[string]any{"url": "http://127.0.0.1:9/a", "secret_name": "A_HOOK"}, Expect: notFoundAndIntact()},
		Case{Op: "DELETE /alerts/configs/{config_id}/webhook", Name: "B removes A's webhook", Setup: alConfigOfA, Expect: notFoundAndIntact(),
			Control: Status(http.StatusNoContent)},
		Case{Op: "GET /alerts/configs/{config_id}/deliveries", Name: "B reads A's delivery log", Setup: alConfigOfA, Expect: notFoundAndIntact(),
			Control: Status(http.StatusOK, NonEmptyList("data"))},

		Case{Op: "GET /alerts/{alert_id}", Name: "B reads A's alert", Setup: alConfigOfA, Expect: notFoundAndIntact()},
		Case{Op: "POST /alerts/{alert_id}/comments", Name: "B comments on A's alert", Setup: alConfigOfA,
			Body: map[string]any{"body": "B was here"}, Expect: notFoundAndIntact()},
		Case{Op: "POST /alerts/{alert_id}/status", Name: "B resolves A's alert", Setup: alConfigOfA,
			Body: map[string]any{"status": "resolved"}, Expect: notFoundAndIntact()},
		Case{Op: "POST /alerts/{alert_id}/subscribe", Name: "B subscribes to A's alert", Setup: alConfigOfA, Expect: notFoundAndIntact()},
		Case{Op: "POST /alerts/{alert_id}/unsubscribe", Name: "B unsubscribes A", Setup: alConfigOfA, Expect: notFoundAndIntact()},

		Case{Op: "GET /alerts/organization-preferences/list", Name: "B does not see A's preferences", Setup: alOrgOfA,
			Path:   "/alerts/organization-preferences/list?organization_id={organization_id}&include_defaults=true",
			Expect: Status(http.StatusOK, EmptyList("preferences")), Control: Status(http.StatusOK, NonEmptyList("preferences"))},
		Case{Op: "PATCH /alerts/organization-preferences/{organization_id}/{alert_type}", Name: "B sets a preference in A's organization",
			Setup: alOrgOfA, Path: "/alerts/organization-preferences/{organization_id}/run_failed", Body: map[string]any{"subscribed": false},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				out, _ := c.S.Alerts.OptOuts(context.Background(), c.B.UserID, c.Vars["organization_id"])
				if len(out) != 0 {
					t.Errorf("B stored preferences in A's organization: %v", out)
				}
			}},
	)
}

func ptrTo[T any](v T) *T { return &v }
