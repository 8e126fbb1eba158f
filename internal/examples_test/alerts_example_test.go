package examplestest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestAlertsWorkedExample runs docs/alerts.md's worked example through the
// Go client: the config printed on the page, on an agent whose runs fail,
// delivered to a webhook receiver on loopback that verifies the signature
// as the page shows.
func TestAlertsWorkedExample(t *testing.T) {
	page := readDoc(t, "../../docs/alerts.md")
	m := regexp.MustCompile("(?s)```json alert-config\n(.*?)```").FindStringSubmatch(page)
	if m == nil {
		t.Fatal("docs/alerts.md has no ```json alert-config block; update this test with the page")
	}
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		ts := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		// The agent's one step calls an endpoint that refuses: every run fails.
		refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusBadRequest) }))
		defer refuse.Close()
		agent := ts.StoreAgent(t, ts.AccountID, "Nightly sync", `{"child_steps":[{"id":"push","step_type":"webhook_call","url":"`+refuse.URL+`"}]}`, "dynamic_input")

		// The receiver checks every request as the page's snippet does.
		const key = "whsec-example-key"
		var (
			mu       sync.Mutex
			verified []map[string]any
			rejected int
		)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			err := client.VerifyAlertWebhook([]byte(key), r.Header.Get(client.AlertSignatureHeader), body, time.Now(), 5*time.Minute)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				rejected++
				http.Error(w, "bad signature", http.StatusUnauthorized)
				return
			}
			var p map[string]any
			_ = json.Unmarshal(body, &p)
			verified = append(verified, p)
		}))
		defer receiver.Close()

		// 1. The signing key, as an account secret.
		if _, err := c.SetSecret(ctx, "ALERT_HOOK_KEY", key, []string{strings.TrimPrefix(receiver.URL, "http://")}); err != nil {
			t.Fatal(err)
		}
		// 2. The config from the page, on this agent.
		var req client.CreateAlertConfigRequest
		if err := json.Unmarshal([]byte(strings.ReplaceAll(m[1], "AGENT_ID", agent)), &req); err != nil {
			t.Fatalf("the page's config: %v", err)
		}
		cfg, err := c.CreateAlertConfig(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.AlertType != "consecutive_failures" || cfg.Threshold["count"] != 3.0 || cfg.CooldownMinutes != 30 {
			t.Fatalf("config: %+v", cfg)
		}
		// 3. Its webhook.
		if _, err := c.SetAlertWebhook(ctx, cfg.ID, receiver.URL+"/agentry", "ALERT_HOOK_KEY"); err != nil {
			t.Fatal(err)
		}

		fail := func() string {
			t.Helper()
			done, err := c.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "go"})
			if err != nil || done.Status != "failed" {
				t.Fatalf("run: %+v %v", done, err)
			}
			return done.RunID
		}
		alerts := func() []client.Alert {
			t.Helper()
			p, err := c.ListAlerts(ctx, client.AlertListOptions{AgentID: agent})
			if err != nil {
				t.Fatal(err)
			}
			return p.Items
		}
		fail()
		fail()
		time.Sleep(300 * time.Millisecond)
		if n := len(alerts()); n != 0 {
			t.Fatalf("%d alerts after two failures", n)
		}
		third := fail()
		var list []client.Alert
		waitFor(t, "the alert", func() bool { list = alerts(); return len(list) == 1 })
		if a := list[0]; a.AlertType != "consecutive_failures" || a.Status != "triggered" || a.AgentRunID == nil || *a.AgentRunID != third {
			t.Fatalf("alert: %+v", a)
		}
		waitFor(t, "the verified webhook", func() bool { mu.Lock(); defer mu.Unlock(); return len(verified) == 1 })
		mu.Lock()
		got := verified[0]
		mu.Unlock()
		alert, _ := got["alert"].(map[string]any)
		if got["event"] != "alert.triggered" || alert["alert_type"] != "consecutive_failures" || alert["agent_run_id"] != third {
			t.Fatalf("webhook: %v", got)
		}

		// A fourth failure adds nothing while the alert is open.
		fail()
		time.Sleep(300 * time.Millisecond)
		if list = alerts(); len(list) != 1 {
			t.Fatalf("alerts after a fourth failure: %d", len(list))
		}
		// Resolving it sends alert.status_changed.
		if _, err := c.SetAlertStatus(ctx, list[0].ID, "resolved", "endpoint fixed"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the status webhook", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(verified) == 2 && verified[1]["event"] == "alert.status_changed"
		})
		mu.Lock()
		defer mu.Unlock()
		if rejected != 0 {
			t.Fatalf("the receiver rejected %d requests", rejected)
		}
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
