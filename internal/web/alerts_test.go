package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// raiseAlert raises a governance_blocked alert on agent, as the governance
// area does when it blocks a step, and returns it as the API lists it.
func raiseAlert(t testing.TB, srv *testserver.Server, api *client.Client, accountID, agent, message string) client.Alert {
	t.Helper()
	ctx := context.Background()
	if err := srv.S.Alerts.Raise(ctx, alerts.Signal{AccountID: accountID, Type: "governance_blocked", AgentID: agent, Message: message}); err != nil {
		t.Fatal(err)
	}
	p, err := api.ListAlerts(ctx, client.AlertListOptions{AgentID: agent, Status: "triggered", Limit: 1})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("the raised alert: %+v %v", p, err)
	}
	return p.Items[0]
}

func alertStatus(t testing.TB, api *client.Client, id string) *client.AlertDetail {
	t.Helper()
	d, err := api.GetAlert(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The alerts area end to end through the console: a config created on an
// agent, its alert in the inbox (filtered), acknowledged from the inbox,
// commented on, unsubscribed and subscribed again, resolved with a note;
// the config edited (a bad threshold shown, not sent), a webhook set and
// its delivery log shown, the config deleted.
func TestAlertsPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Card checker", showDef, "dynamic_input")
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		b.get("/console/alerts/configs?agent="+agent).mustContain(t, "Card checker", "No configs here yet", `value="governance_blocked"`)
		p := b.post("/console/alerts/configs", url.Values{"agent": {agent}, "alert_type": {"governance_blocked"}, "threshold": {`{"note":"kept"}`},
			"cooldown_minutes": {"0"}, "distribution_type": {"owner"}, "enabled": {"true"}})
		p.mustContain(t, "Created the alert config.", "governance_blocked", "Card checker", `{&#34;note&#34;:&#34;kept&#34;}`)
		cfgID := strings.TrimPrefix(p.URL, "/console/alerts/configs/")
		cfg, err := api.GetAlertConfig(ctx, cfgID)
		if err != nil || cfg.AgentID == nil || *cfg.AgentID != agent || cfg.CooldownMinutes != 0 || cfg.Threshold["note"] != "kept" {
			t.Fatalf("the config created: %+v %v", cfg, err)
		}
		b.get("/console/alerts/configs?agent="+agent).mustContain(t, `href="/console/alerts/configs/`+cfgID+`"`)

		a := raiseAlert(t, srv, api, srv.AccountID, agent, "Card number in the input")
		inbox := b.get("/console/alerts")
		inbox.mustContain(t, "alerts-table", `href="/console/alerts/`+a.ID+`"`, a.Title, "Card checker", "triggered", "Acknowledge")
		if p := b.get("/console/alerts?status=resolved"); strings.Contains(p.Body, a.ID) {
			t.Fatal("a triggered alert is listed under resolved")
		}
		b.get("/console/alerts?status=triggered&agent="+agent+"&since=24h").mustContain(t, a.ID)
		if p := b.get("/console/alerts?status=open"); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "error-text") {
			t.Fatalf("a status the API refuses: %d", p.Status)
		}

		// Acknowledge from the inbox: back to the same filtered list.
		b.get("/console/alerts?status=triggered")
		p = b.post("/console/alerts/"+a.ID+"/status", url.Values{"status": {"acknowledged"}, "back": {"/console/alerts?status=triggered"}})
		if p.Status != http.StatusOK || p.URL != "/console/alerts" || strings.Contains(p.Body, `id="alert-`+a.ID+`"`) {
			t.Fatalf("after acknowledging: %d at %s", p.Status, p.URL)
		}
		p.mustContain(t, "Acknowledged the alert.")
		if got := alertStatus(t, api, a.ID); got.Alert.Status != "acknowledged" {
			t.Fatalf("status after acknowledging: %s", got.Alert.Status)
		}
		// An outside "back" is not followed.
		p = b.post("/console/alerts/"+a.ID+"/status", url.Values{"status": {"acknowledged"}, "back": {"https://evil.example/"}})
		if p.URL != "/console/alerts/"+a.ID {
			t.Fatalf("an outside back went to %s", p.URL)
		}

		page := b.get("/console/alerts/" + a.ID)
		page.mustContain(t, a.Title, "Resolve", "Dismiss", "Subscribers", "Unsubscribe", "triggered → <span class=\"tag st-wait\">acknowledged</span>", "Card checker")
		b.post("/console/alerts/"+a.ID+"/comments", url.Values{"body": {"It was a <test> card."}}).mustContain(t, "Added your comment.", "It was a &lt;test&gt; card.")
		b.post("/console/alerts/"+a.ID+"/comments", url.Values{"body": {"   "}}).mustContain(t, `role="alert"`)
		b.post("/console/alerts/"+a.ID+"/unsubscribe", nil).mustContain(t, "You are no longer subscribed", "Nobody is subscribed.")
		if got := alertStatus(t, api, a.ID); got.Alert.IsSubscribed || len(got.Comments) != 1 {
			t.Fatalf("after unsubscribing: %+v", got.Alert)
		}
		b.post("/console/alerts/"+a.ID+"/subscribe", nil).mustContain(t, "You are subscribed to this alert.")
		b.post("/console/alerts/"+a.ID+"/status", url.Values{"status": {"closed"}}).mustContain(t, `role="alert"`)
		b.post("/console/alerts/"+a.ID+"/status", url.Values{"status": {"resolved"}, "note": {"test card"}}).mustContain(t, "Resolved the alert.", "Reopen", "“test card”")
		got := alertStatus(t, api, a.ID)
		if got.Alert.Status != "resolved" || !got.Alert.IsSubscribed || len(got.History) != 4 || *got.History[3].Note != "test card" {
			t.Fatalf("after resolving: %+v", got)
		}

		// The config: a bad threshold is the form's problem; a good one saves.
		b.get("/console/alerts/configs/" + cfgID)
		p = b.post("/console/alerts/configs/"+cfgID+"/save", url.Values{"threshold": {"{count"}, "cooldown_minutes": {"5"}, "distribution_type": {"owner"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "must be a JSON object") {
			t.Fatalf("bad threshold: %d", p.Status)
		}
		p = b.post("/console/alerts/configs/"+cfgID+"/save", url.Values{"cooldown_minutes": {"-3"}, "distribution_type": {"owner"}, "enabled": {"true"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "cooldown_minutes") {
			t.Fatalf("a cooldown the API refuses: %d\n%s", p.Status, p.Body)
		}
		b.post("/console/alerts/configs/"+cfgID+"/save", url.Values{"cooldown_minutes": {"15"}, "distribution_type": {"owner"}}).mustContain(t, "Saved the alert config.")
		if cfg, err := api.GetAlertConfig(ctx, cfgID); err != nil || cfg.Enabled || cfg.CooldownMinutes != 15 {
			t.Fatalf("after saving: %+v %v", cfg, err)
		}

		// The webhook: the API's refusal is shown; a bound secret saves.
		b.post("/console/alerts/configs/"+cfgID+"/webhook", url.Values{"url": {"https://example.com/h"}, "secret_name": {"NOPE"}}).mustContain(t, `role="alert"`, "secret_name")
		if _, err := api.SetSecret(ctx, "HOOK", "v", []string{"example.com"}); err != nil {
			t.Fatal(err)
		}
		b.post("/console/alerts/configs/"+cfgID+"/webhook", url.Values{"url": {"https://example.com/h"}, "secret_name": {"HOOK"}}).
			mustContain(t, "Saved the webhook.", "are POSTed to <code>https://example.com/h</code>", "Remove webhook")
		if h, err := api.GetAlertWebhook(ctx, cfgID); err != nil || h.URL == nil || *h.URL != "https://example.com/h" {
			t.Fatalf("webhook: %+v %v", h, err)
		}
		// The delivery log shows what the API lists (the raise's e-mail and
		// the status changes go out through jobs: wait for one).
		var deliveries []client.AlertDelivery
		for deadline := time.Now().Add(10 * time.Second); len(deliveries) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			l, err := api.ListAlertDeliveries(ctx, cfgID, 1, 25)
			if err != nil {
				t.Fatal(err)
			}
			deliveries = l.Items
		}
		if len(deliveries) == 0 {
			t.Fatal("no delivery was logged")
		}
		b.get("/console/alerts/configs/"+cfgID).mustContain(t, "deliveries-table", deliveries[0].Event, deliveries[0].Target)
		b.post("/console/alerts/configs/"+cfgID+"/webhook/delete", nil).mustContain(t, "Removed the webhook.", "No webhook")

		// A member may read but not set webhooks: the API's 403 is the page's.
		member := newBrowser(t, srv)
		member.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		member.get("/console/alerts/configs/"+cfgID).mustContain(t, "governance_blocked")
		if p := member.post("/console/alerts/configs/"+cfgID+"/webhook", url.Values{"url": {"https://example.com/h"}, "secret_name": {"HOOK"}}); p.Status != http.StatusForbidden {
			t.Fatalf("a member setting a webhook: %d", p.Status)
		}

		// Another account sees none of it.
		other := srv.NewTenant(t, "mallory")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		if p := ob.get("/console/alerts"); strings.Contains(p.Body, a.ID) || strings.Contains(p.Body, a.Title) {
			t.Fatal("another account's alert is listed")
		}
		for _, path := range []string{"/console/alerts/" + a.ID, "/console/alerts/configs/" + cfgID} {
			if p := ob.get(path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Card") {
				t.Errorf("GET %s as another account: %d", path, p.Status)
			}
		}
		for path, form := range map[string]url.Values{
			"/console/alerts/" + a.ID + "/status":    {"status": {"dismissed"}},
			"/console/alerts/" + a.ID + "/comments":  {"body": {"mine"}},
			"/console/alerts/" + a.ID + "/subscribe": nil, "/console/alerts/" + a.ID + "/unsubscribe": nil,
			"/console/alerts/configs/" + cfgID + "/save":           {"cooldown_minutes": {"1"}},
			"/console/alerts/configs/" + cfgID + "/webhook":        {"url": {"https://example.com/x"}, "secret_name": {"HOOK"}},
			"/console/alerts/configs/" + cfgID + "/webhook/delete": nil, "/console/alerts/configs/" + cfgID + "/delete": nil,
		} {
			if p := ob.post(path, form); p.Status != http.StatusNotFound {
				t.Errorf("POST %s as another account: %d", path, p.Status)
			}
		}
		if got := alertStatus(t, api, a.ID); got.Alert.Status != "resolved" || len(got.Comments) != 1 {
			t.Fatalf("another account changed the alert: %+v", got.Alert)
		}
		// Nor can it create a config on this account's agent.
		ob.get("/console/alerts/configs")
		if p := ob.post("/console/alerts/configs", url.Values{"agent": {agent}, "alert_type": {"run_failed"}}); p.Status != http.StatusUnprocessableEntity {
			t.Errorf("a config on another account's agent: %d", p.Status)
		}

		// Deleting the config keeps its alert.
		b.get("/console/alerts/configs/" + cfgID)
		b.post("/console/alerts/configs/"+cfgID+"/delete", nil).mustContain(t, "Deleted the alert config", "No configs here yet")
		if _, err := api.GetAlertConfig(ctx, cfgID); err == nil {
			t.Fatal("the config was not deleted")
		}
		alertStatus(t, api, a.ID)
	})
}

// Organization preferences: an admin opts out and back in; a member
// manages none (and is refused); an outsider is told of nothing.
func TestAlertPreferencesPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		org, err := directory.CreateOrganization(ctx, srv.DB, "Org", srv.UserID, 100)
		if err != nil {
			t.Fatal(err)
		}
		admin, member := srv.NewTenant(t, "admin"), srv.NewTenant(t, "member")
		if err := directory.AddMember(ctx, srv.DB, org.ID, admin.UserID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, srv.DB, org.ID, member.UserID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		adminKey := srv.IssueKey(t, org.ID, admin.UserID, store.RoleAdmin)
		b := newBrowser(t, srv)
		b.signInWithKey(adminKey)
		b.get("/console/alerts/preferences").mustContain(t, org.ID, "<code>run_failed</code>", "Opt out")
		b.post("/console/alerts/preferences", url.Values{"organization_id": {org.ID}, "alert_type": {"run_failed"}, "subscribed": {"false"}}).
			mustContain(t, "Saved your preference.", "no (opted out)", "Opt back in")
		prefs, err := apiClient(t, srv, adminKey).ListAlertPreferences(ctx, org.ID, false)
		if err != nil || len(prefs) != 1 || prefs[0].AlertType != "run_failed" || prefs[0].Subscribed {
			t.Fatalf("after opting out: %+v %v", prefs, err)
		}
		b.post("/console/alerts/preferences", url.Values{"organization_id": {org.ID}, "alert_type": {"bogus"}, "subscribed": {"false"}}).mustContain(t, `role="alert"`)
		b.post("/console/alerts/preferences", url.Values{"organization_id": {org.ID}, "alert_type": {"run_failed"}, "subscribed": {"true"}})
		if prefs, _ := apiClient(t, srv, adminKey).ListAlertPreferences(ctx, org.ID, false); len(prefs) != 0 {
			t.Fatalf("after opting back in: %+v", prefs)
		}

		m := newBrowser(t, srv)
		m.signInWithKey(srv.IssueKey(t, org.ID, member.UserID, store.RoleMember))
		m.get("/console/alerts/preferences").mustContain(t, "You own or administer no organization")
		if p := m.post("/console/alerts/preferences", url.Values{"organization_id": {org.ID}, "alert_type": {"run_failed"}, "subscribed": {"false"}}); p.Status != http.StatusForbidden {
			t.Errorf("a member: %d", p.Status)
		}
		outsider := srv.NewTenant(t, "outsider")
		o := newBrowser(t, srv)
		o.signInWithKey(outsider.Key)
		if p := o.get("/console/alerts/preferences"); strings.Contains(p.Body, org.ID) {
			t.Error("an outsider sees the organization")
		}
		if p := o.post("/console/alerts/preferences", url.Values{"organization_id": {org.ID}, "alert_type": {"run_failed"}, "subscribed": {"false"}}); p.Status != http.StatusNotFound {
			t.Errorf("an outsider: %d", p.Status)
		}
	})
}

var olderLink = regexp.MustCompile(`href="/console/alerts(\?[^"]*)" rel="next"`)
var alertRowID = regexp.MustCompile(`<tr id="alert-([0-9a-f-]+)"`)

// The inbox pages by time: following "Older" from the newest page shows
// every alert once, newest first, with the filters kept.
func TestAlertsInboxPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		a1 := srv.StoreAgent(t, srv.AccountID, "One", showDef, "dynamic_input")
		a2 := srv.StoreAgent(t, srv.AccountID, "Two", showDef, "dynamic_input")
		ids := seedAlerts(t, srv.DB, srv.AccountID, []string{a1, a2}, 230)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		walk := func(path string) []string {
			var seen []string
			for pages := 0; path != ""; pages++ {
				if pages > 10 {
					t.Fatal("the pages do not end")
				}
				p := b.get(path)
				if p.Status != http.StatusOK {
					t.Fatalf("%s: %d", path, p.Status)
				}
				for _, m := range alertRowID.FindAllStringSubmatch(p.Body, -1) {
					seen = append(seen, m[1])
				}
				path = ""
				if m := olderLink.FindStringSubmatch(p.Body); m != nil {
					path = "/console/alerts" + html.UnescapeString(m[1])
				}
			}
			return seen
		}
		all := walk("/console/alerts")
		if len(all) != len(ids) {
			t.Fatalf("%d alerts over the pages, want %d", len(all), len(ids))
		}
		for i, id := range all {
			if id != ids[len(ids)-1-i] {
				t.Fatalf("alert %d is %s, want %s", i, id, ids[len(ids)-1-i])
			}
		}
		// Filtered: agent One's, every other seeded alert.
		one := walk("/console/alerts?agent=" + a1)
		if len(one) != len(ids)/2 || one[0] != ids[len(ids)-2] {
			t.Fatalf("agent One's pages: %d alerts", len(one))
		}
		if p := b.get("/console/alerts?before=yesterday"); p.Status != http.StatusBadRequest {
			t.Fatalf("a page time that is not a time: %d", p.Status)
		}
	})
}
