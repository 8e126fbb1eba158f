package alerts_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// A failed run raises run_failed within a second, the alert posts a signed
// webhook, further failures count on the open alert, and after it is
// resolved the cooldown holds the next one back.
func TestRunFailedRaisedDeliveredAndCooledDown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		// Alert e-mail leaves through the mail area's relay: a sink here.
		sink := mailtest.StartSink(t, "", "")
		s := testserver.Start(t, d, func(c *server.Config) {
			c.AllowPrivateWebhooks = true
			c.SMTPRelayURL = "smtp://" + sink.Addr
		})
		// The test server's owner has no address of its own; give it one.
		if _, err := s.DB.W.ExecContext(ctx, `UPDATE users SET email = $1 WHERE id = $2`, "owner@example.com", s.UserID); err != nil {
			t.Fatal(err)
		}
		agent := failingAgent(t, s, s.AccountID)
		fine := okAgent(t, s, s.AccountID)
		cfg := createConfig(t, s, s.Key, map[string]any{"alert_type": "run_failed", "agent_id": agent, "cooldown_minutes": 60})
		rc := newReceiver(t)
		if r := s.Do(t, "PUT", "/secrets/HOOK_KEY", s.Key, map[string]any{"value": "s3cret", "hosts": []string{strings.TrimPrefix(rc.URL, "http://")}}); r.Status != http.StatusCreated {
			t.Fatalf("secret: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "PUT", "/alerts/configs/"+cfg+"/webhook", s.Key, map[string]any{"url": rc.URL + "/hook", "secret_name": "HOOK_KEY"}); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Body)
		}

		// A completed run raises nothing.
		if _, st := runToEnd(t, s, s.Key, fine); st != "completed" {
			t.Fatalf("ok agent: %s", st)
		}
		runID, st := runToEnd(t, s, s.Key, agent)
		if st != "failed" {
			t.Fatalf("flaky agent: %s", st)
		}
		ended, err := runs.NewRepo(s.DB, nil).Run(ctx, s.AccountID, runID)
		if err != nil {
			t.Fatal(err)
		}
		var l alertList
		eventually(t, "the run_failed alert", func() bool { l = listAlerts(t, s, s.Key, ""); return len(l.Data) == 1 })
		a := l.Data[0]
		if a.AlertType != "run_failed" || a.Status != "triggered" || a.AgentRunID == nil || *a.AgentRunID != runID ||
			a.AlertConfigID == nil || *a.AlertConfigID != cfg || !strings.Contains(*a.Description, "400") || a.SubscriberCount != 1 || !a.IsSubscribed {
			t.Fatalf("alert: %+v", a)
		}
		created, _ := time.Parse(time.RFC3339Nano, a.CreatedAt)
		if lag := created.Sub(*ended.EndedAt); lag > time.Second || lag < 0 {
			t.Errorf("alert raised %v after the run ended, want within 1s", lag)
		}

		// The webhook arrives signed with the secret.
		eventually(t, "the webhook", func() bool { return len(rc.requests()) == 1 })
		req := rc.requests()[0]
		if err := alerts.Verify([]byte("s3cret"), req.Header.Get(alerts.SignatureHeader), req.Body, time.Now(), time.Minute); err != nil {
			t.Fatalf("signature: %v (%q)", err, req.Header.Get(alerts.SignatureHeader))
		}
		if err := alerts.Verify([]byte("other"), req.Header.Get(alerts.SignatureHeader), req.Body, time.Now(), time.Minute); err == nil {
			t.Fatal("a wrong secret verified")
		}
		if ev, al := payload(t, req.Body); ev != "alert.triggered" || al["id"] != a.ID || al["alert_type"] != "run_failed" {
			t.Fatalf("payload: %s %v", ev, al)
		}

		// A second failure while it is open counts on the same alert.
		runToEnd(t, s, s.Key, agent)
		eventually(t, "a second occurrence", func() bool {
			l = listAlerts(t, s, s.Key, "")
			return len(l.Data) == 1 && l.Data[0].Details["occurrences"] == 2.0
		})

		// Resolved: the cooldown keeps the next failure quiet...
		if r := s.Do(t, "POST", "/alerts/"+a.ID+"/status", s.Key, map[string]any{"status": "resolved", "note": "fixed the endpoint"}); r.Status != http.StatusOK {
			t.Fatalf("resolve: %d %s", r.Status, r.Body)
		}
		runToEnd(t, s, s.Key, agent)
		time.Sleep(300 * time.Millisecond)
		if l = listAlerts(t, s, s.Key, ""); len(l.Data) != 1 {
			t.Fatalf("an alert within the cooldown: %d", len(l.Data))
		}
		// ...and with no cooldown, the next failure is a new alert.
		if r := s.Do(t, "PATCH", "/alerts/configs/"+cfg, s.Key, map[string]any{"cooldown_minutes": 0}); r.Status != http.StatusOK {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		runToEnd(t, s, s.Key, agent)
		eventually(t, "a new alert", func() bool {
			l = listAlerts(t, s, s.Key, "?status=triggered")
			return len(l.Data) == 1 && l.Data[0].ID != a.ID
		})

		// The delivery log shows the webhook deliveries and the e-mail to
		// the owner, which the relay receives.
		var log struct {
			Data []struct {
				Channel, Status, Event string
				Error                  *string
			} `json:"data"`
		}
		eventually(t, "the delivery log", func() bool {
			s.Do(t, "GET", "/alerts/configs/"+cfg+"/deliveries", s.Key, nil).JSON(t, &log)
			delivered, mailed := 0, 0
			for _, e := range log.Data {
				if e.Channel == "webhook" && e.Status == "delivered" {
					delivered++
				}
				if e.Channel == "email" && e.Status == "delivered" {
					mailed++
				}
			}
			// triggered, resolved (status change), triggered again.
			return delivered == 3 && mailed >= 2
		})
		got := sink.Wait(t, 2)
		if !bytes.Contains(got[0].Data, []byte("Subject: [Alert")) || !bytes.Contains(got[0].Data, []byte(a.ID)) ||
			!strings.HasPrefix(got[0].From, "alerts@") || len(got[0].To) != 1 || got[0].To[0] != "owner@example.com" {
			t.Fatalf("alert mail from %s to %v:\n%s", got[0].From, got[0].To, got[0].Data)
		}
	})
}

// A receiver that fails is retried with backoff until it answers.
func TestWebhookRetriedWithBackoff(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		rc := newReceiver(t, http.StatusServiceUnavailable, http.StatusInternalServerError)
		s.Do(t, "PUT", "/secrets/K", s.Key, map[string]any{"value": "k", "hosts": []string{strings.TrimPrefix(rc.URL, "http://")}})
		cfg := createConfig(t, s, s.Key, map[string]any{"alert_type": "governance_blocked"})
		s.Do(t, "PUT", "/alerts/configs/"+cfg+"/webhook", s.Key, map[string]any{"url": rc.URL, "secret_name": "K"})
		if err := s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: "governance_blocked", Message: "PII in input"}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "three attempts", func() bool { return len(rc.requests()) == 3 })
		got := rc.requests()
		if gap := got[2].At.Sub(got[1].At); gap < 1500*time.Millisecond {
			t.Errorf("second retry came %v after the first; want the backoff to grow (≥2s)", gap)
		}
		var log struct {
			Data []struct {
				Status         string `json:"status"`
				Attempts       int    `json:"attempts"`
				ResponseStatus *int   `json:"response_status"`
			} `json:"data"`
		}
		eventually(t, "the delivered log entry", func() bool {
			s.Do(t, "GET", "/alerts/configs/"+cfg+"/deliveries", s.Key, nil).JSON(t, &log)
			for _, e := range log.Data {
				if e.Status == "delivered" && e.Attempts == 3 && e.ResponseStatus != nil && *e.ResponseStatus == 200 {
					return true
				}
			}
			return false
		})
	})
}

// Without the operator's permission a webhook to loopback is refused by
// the outbound guard, and logged as failed, not retried.
func TestWebhookThroughTheOutboundGuard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserverStart(t, d)
		rc := newReceiver(t)
		s.Do(t, "PUT", "/secrets/K", s.Key, map[string]any{"value": "k", "hosts": []string{strings.TrimPrefix(rc.URL, "http://")}})
		cfg := createConfig(t, s, s.Key, map[string]any{"alert_type": "governance_flagged"})
		s.Do(t, "PUT", "/alerts/configs/"+cfg+"/webhook", s.Key, map[string]any{"url": rc.URL, "secret_name": "K"})
		if err := s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: "governance_flagged"}); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Data []struct {
				Channel, Status string
				Error           *string
			} `json:"data"`
		}
		eventually(t, "the failed delivery", func() bool {
			s.Do(t, "GET", "/alerts/configs/"+cfg+"/deliveries", s.Key, nil).JSON(t, &log)
			for _, e := range log.Data {
				if e.Channel == "webhook" && e.Status == "failed" && e.Error != nil && strings.Contains(*e.Error, "private or loopback") {
					return true
				}
			}
			return false
		})
		if n := len(rc.requests()); n != 0 {
			t.Fatalf("the guard let %d requests through", n)
		}
	})
}
