package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAlertsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		ctx := context.Background()
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "A", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")

		var cfg client.AlertConfig
		run(t, append(g, "alerts", "configs", "create", "governance_blocked", "--agent", agent, "--threshold", `{"note":"x"}`, "--cooldown", "0")...).ok(t, &cfg)
		if cfg.AlertType != "governance_blocked" || cfg.CooldownMinutes != 0 || cfg.Threshold["note"] != "x" {
			t.Fatalf("create: %+v", cfg)
		}
		run(t, append(g, "alerts", "configs", "create", "bogus")...).exits(t, cli.ExitValidation, "alert_type")
		run(t, append(g, "alerts", "configs", "create", "run_failed", "--threshold", "[")...).exits(t, cli.ExitUsage, "--threshold")
		var configs []client.AlertConfig
		run(t, append(g, "alerts", "configs", "list", "--agent", agent)...).ok(t, &configs)
		if len(configs) != 1 || configs[0].ID != cfg.ID {
			t.Fatalf("list: %+v", configs)
		}
		run(t, append(g, "alerts", "configs", "update", cfg.ID, "--disable")...).ok(t, &cfg)
		if cfg.Enabled {
			t.Fatal("still enabled")
		}
		run(t, append(g, "alerts", "configs", "update", cfg.ID, "--enable")...).ok(t, &cfg)
		run(t, append(g, "alerts", "configs", "get", cfg.ID)...).ok(t, &cfg)
		if !cfg.Enabled {
			t.Fatal("not enabled again")
		}

		if _, _, err := ts.S.Secrets.Put(ctx, ts.AccountID, "HOOK", ptrTo("k"), []string{"example.com"}); err != nil {
			t.Fatal(err)
		}
		var hook client.AlertWebhook
		run(t, append(g, "alerts", "configs", "webhook", "set", cfg.ID, "https://example.com/h", "HOOK")...).ok(t, &hook)
		if hook.URL == nil || *hook.URL != "https://example.com/h" {
			t.Fatalf("webhook: %+v", hook)
		}
		run(t, append(g, "alerts", "configs", "webhook", "get", cfg.ID)...).ok(t, &hook)
		run(t, append(g, "alerts", "configs", "webhook", "delete", cfg.ID)...).ok(t, nil)

		if err := ts.S.Alerts.Raise(ctx, alerts.Signal{AccountID: ts.AccountID, Type: "governance_blocked", AgentID: agent, Message: "blocked"}); err != nil {
			t.Fatal(err)
		}
		var listed []client.Alert
		run(t, append(g, "alerts", "list", "--status", "triggered", "--all")...).ok(t, &listed)
		if len(listed) != 1 {
			t.Fatalf("alerts: %+v", listed)
		}
		id := listed[0].ID
		tbl := run(t, append(g, "alerts", "list", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "governance_blocked") {
			t.Errorf("table:\n%s", tbl.stdout)
		}
		run(t, append(g, "alerts", "list", "--since", "yesterday")...).exits(t, cli.ExitUsage, "--since")

		var det client.AlertDetail
		run(t, append(g, "alerts", "status", id, "acknowledged", "--note", "on it")...).ok(t, &det)
		run(t, append(g, "alerts", "comment", id, "fixed")...).ok(t, &det)
		run(t, append(g, "alerts", "unsubscribe", id)...).ok(t, &det)
		if det.Alert.IsSubscribed {
			t.Fatal("still subscribed")
		}
		run(t, append(g, "alerts", "subscribe", id)...).ok(t, &det)
		run(t, append(g, "alerts", "get", id)...).ok(t, &det)
		if det.Alert.Status != "acknowledged" || len(det.Comments) != 1 || len(det.History) != 2 || !det.Alert.IsSubscribed {
			t.Fatalf("detail: %+v", det)
		}
		if out := run(t, append(g, "alerts", "get", id, "-o", "table")...).stdout; !strings.Contains(out, "on it") {
			t.Errorf("table detail:\n%s", out)
		}
		run(t, append(g, "alerts", "get", "0190a3b4-0000-7000-8000-000000000000")...).exits(t, cli.ExitNotFound, "not found")

		var log []client.AlertDelivery
		run(t, append(g, "alerts", "configs", "deliveries", cfg.ID)...).ok(t, &log)

		org, err := directory.CreateOrganization(ctx, ts.DB, "Org", ts.UserID, 0)
		if err != nil {
			t.Fatal(err)
		}
		var p client.AlertPreference
		run(t, append(g, "alerts", "preferences", "set", org.ID, "run_burst", "off")...).ok(t, &p)
		if p.Subscribed {
			t.Fatalf("pref: %+v", p)
		}
		run(t, append(g, "alerts", "preferences", "set", org.ID, "run_burst", "maybe")...).exits(t, cli.ExitUsage, "on or off")
		var prefs []client.AlertPreference
		run(t, append(g, "alerts", "preferences", "list", "--defaults", "--org", org.ID)...).ok(t, &prefs)
		if len(prefs) != len(alerts.AllTypes) {
			t.Fatalf("prefs: %d", len(prefs))
		}
		run(t, append(g, "alerts", "configs", "delete", cfg.ID)...).ok(t, nil)
	})
}

func ptrTo[T any](v T) *T { return &v }
