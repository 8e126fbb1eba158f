package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

type alertDetail struct {
	Alert struct {
		ID              string `json:"id"`
		Status          string `json:"status"`
		CommentCount    int    `json:"comment_count"`
		SubscriberCount int    `json:"subscriber_count"`
		IsSubscribed    bool   `json:"is_subscribed"`
	} `json:"alert"`
	History []struct {
		PreviousStatus  *string `json:"previous_status"`
		NewStatus       string  `json:"new_status"`
		ChangedByUserID *string `json:"changed_by_user_id"`
		Note            *string `json:"note"`
	} `json:"history"`
	Comments []struct {
		Body   string `json:"body"`
		UserID string `json:"user_id"`
	} `json:"comments"`
	Subscribers []struct {
		UserID string `json:"user_id"`
	} `json:"subscribers"`
}

func wantCode(t *testing.T, r testserver.Response, code int) {
	t.Helper()
	if r.Status != code {
		t.Fatalf("status %d, want %d: %s", r.Status, code, r.Body)
	}
}

// The lifecycle of an alert: status changes with history, comments,
// subscriptions; and the validation of configs.
func TestAlertLifecycleAndConfigs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()

		// Validation: clear 422s naming the field.
		for body, field := range map[string]string{
			`{"alert_type":"bogus"}`: "alert_type",
			`{"alert_type":"run_failed","agent_id":"0190a3b4-0000-7000-8000-000000000001"}`:                  "agent_id",
			`{"alert_type":"pull_failed","agent_id":"x"}`:                                                    "agent_id",
			`{"alert_type":"consecutive_failures","threshold":{"count":0}}`:                                  "threshold",
			`{"alert_type":"run_failed","cooldown_minutes":-5}`:                                              "cooldown_minutes",
			`{"alert_type":"run_failed","distribution_type":"everyone"}`:                                     "distribution_type",
			`{"alert_type":"run_failed","distribution_type":"selected_members"}`:                             "recipient_user_ids",
			`{"alert_type":"run_failed","distribution_type":"selected_members","recipient_user_ids":["u1"]}`: "recipient_user_ids",
			`{"alert_type":"credits_low_threshold","agent_id":"0190a3b4-0000-7000-8000-000000000001"}`:       "agent_id",
		} {
			r := s.Do(t, "POST", "/alerts/configs", s.Key, body)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"`+field+`"`) {
				t.Errorf("%s: %d %s", body, r.Status, r.Body)
			}
		}

		agent := s.StoreAgent(t, s.AccountID, "A", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")
		r := s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "governance_blocked", "agent_id": agent,
			"distribution_type": "selected_members", "recipient_user_ids": []string{s.UserID}, "threshold": map[string]any{"note": "kept"}})
		wantCode(t, r, http.StatusCreated)
		var cfg struct {
			ID               string         `json:"id"`
			Threshold        map[string]any `json:"threshold"`
			Enabled          bool           `json:"enabled"`
			CooldownMinutes  int            `json:"cooldown_minutes"`
			RecipientUserIDs []string       `json:"recipient_user_ids"`
			LastAlertedAt    *string        `json:"last_alerted_at"`
		}
		r.JSON(t, &cfg)
		if !cfg.Enabled || cfg.CooldownMinutes != 60 || cfg.Threshold["note"] != "kept" || len(cfg.RecipientUserIDs) != 1 || cfg.LastAlertedAt != nil {
			t.Fatalf("config: %s", r.Body)
		}
		// Listing by agent, the account-level list, and the versioned shapes.
		createBody := map[string]any{"alert_type": "pull_failed"}
		wantCode(t, s.Do(t, "POST", "/alerts/configs", s.Key, createBody), http.StatusCreated)
		var legacy struct {
			Configs []struct{ ID string } `json:"configs"`
			Total   int                   `json:"total"`
		}
		s.Do(t, "GET", "/alerts/configs?agent_id="+agent, s.Key, nil).JSON(t, &legacy)
		if legacy.Total != 1 || legacy.Configs[0].ID != cfg.ID {
			t.Fatalf("by agent: %+v", legacy)
		}
		s.Do(t, "GET", "/alerts/configs", s.Key, nil).JSON(t, &legacy)
		if legacy.Total != 0 {
			t.Errorf("account-level agent configs: %+v", legacy)
		}
		s.Do(t, "GET", "/alerts/configs?scope=source", s.Key, nil).JSON(t, &legacy)
		if legacy.Total != 1 {
			t.Errorf("account-level source configs: %+v", legacy)
		}
		var env struct {
			Data       []struct{ ID string } `json:"data"`
			Pagination struct{ Total int }   `json:"pagination"`
		}
		s.Do(t, "GET", "/alerts/configs?scope=source", s.Key, nil, "Service-Version: 2026-07-27").JSON(t, &env)
		if env.Pagination.Total != 1 || len(env.Data) != 1 {
			t.Errorf("envelope: %+v", env)
		}
		wantCode(t, s.Do(t, "GET", "/alerts/configs?scope=everything", s.Key, nil), http.StatusUnprocessableEntity)

		// The severity gate: ignored before 2026-07-27, a 422 from it on.
		wantCode(t, s.Do(t, "GET", "/alerts?severity=high", s.Key, nil), http.StatusOK)
		r = s.Do(t, "GET", "/alerts?severity=high", s.Key, nil, "Service-Version: 2026-07-27")
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"severity"`) {
			t.Fatalf("severity at 2026-07-27: %d %s", r.Status, r.Body)
		}
		wantCode(t, s.Do(t, "GET", "/alerts?time_from=yesterday", s.Key, nil), http.StatusUnprocessableEntity)
		wantCode(t, s.Do(t, "GET", "/alerts?status=open", s.Key, nil), http.StatusUnprocessableEntity)

		// An alert from the config.
		if err := s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: "governance_blocked", AgentID: agent,
			Message: "Card number in the input"}); err != nil {
			t.Fatal(err)
		}
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		s.Do(t, "GET", "/alerts?agent_id="+agent+"&status=triggered&time_from=2020-01-01T00:00:00Z", s.Key, nil).JSON(t, &list)
		if len(list.Data) != 1 {
			t.Fatalf("list: %+v", list)
		}
		id := list.Data[0].ID
		var det alertDetail
		s.Do(t, "GET", "/alerts/"+id, s.Key, nil).JSON(t, &det)
		if det.Alert.Status != "triggered" || len(det.History) != 1 || det.History[0].PreviousStatus != nil ||
			len(det.Subscribers) != 1 || !det.Alert.IsSubscribed {
			t.Fatalf("detail: %+v", det)
		}
		var c struct {
			LastAlertedAt *string `json:"last_alerted_at"`
		}
		s.Do(t, "GET", "/alerts/configs/"+cfg.ID, s.Key, nil).JSON(t, &c)
		if c.LastAlertedAt == nil {
			t.Error("last_alerted_at not set")
		}

		r = s.Do(t, "POST", "/alerts/"+id+"/status", s.Key, map[string]any{"status": "acknowledged", "note": "looking"})
		wantCode(t, r, http.StatusOK)
		r = s.Do(t, "POST", "/alerts/"+id+"/comments", s.Key, map[string]any{"body": "It was a test card."})
		wantCode(t, r, http.StatusOK)
		r.JSON(t, &det)
		if det.Alert.Status != "acknowledged" || len(det.History) != 2 || *det.History[1].PreviousStatus != "triggered" ||
			*det.History[1].Note != "looking" || *det.History[1].ChangedByUserID != s.UserID || len(det.Comments) != 1 ||
			det.Comments[0].UserID != s.UserID || det.Alert.CommentCount != 1 {
			t.Fatalf("after ack and comment: %s", r.Body)
		}
		wantCode(t, s.Do(t, "POST", "/alerts/"+id+"/comments", s.Key, map[string]any{"body": "  "}), http.StatusUnprocessableEntity)
		wantCode(t, s.Do(t, "POST", "/alerts/"+id+"/status", s.Key, map[string]any{"status": "closed"}), http.StatusUnprocessableEntity)

		s.Do(t, "POST", "/alerts/"+id+"/unsubscribe", s.Key, nil).JSON(t, &det)
		if det.Alert.IsSubscribed || len(det.Subscribers) != 0 {
			t.Fatalf("unsubscribed: %+v", det.Alert)
		}
		s.Do(t, "POST", "/alerts/"+id+"/subscribe", s.Key, nil).JSON(t, &det)
		s.Do(t, "POST", "/alerts/"+id+"/subscribe", s.Key, nil).JSON(t, &det)
		if !det.Alert.IsSubscribed || det.Alert.SubscriberCount != 1 {
			t.Fatalf("subscribed twice: %+v", det.Alert)
		}

		// Dismissed, then another signal opens a new alert (cooldown 0),
		// and the old one cannot be reopened beside it.
		wantCode(t, s.Do(t, "PATCH", "/alerts/configs/"+cfg.ID, s.Key, map[string]any{"cooldown_minutes": 0, "enabled": true}), http.StatusOK)
		wantCode(t, s.Do(t, "POST", "/alerts/"+id+"/status", s.Key, map[string]any{"status": "dismissed"}), http.StatusOK)
		_ = s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: "governance_blocked", AgentID: agent})
		wantCode(t, s.Do(t, "POST", "/alerts/"+id+"/status", s.Key, map[string]any{"status": "triggered"}), http.StatusConflict)
		// A disabled config raises nothing.
		wantCode(t, s.Do(t, "PATCH", "/alerts/configs/"+cfg.ID, s.Key, map[string]any{"enabled": false}), http.StatusOK)
		_ = s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: "governance_blocked", AgentID: agent})
		s.Do(t, "GET", "/alerts", s.Key, nil).JSON(t, &list)
		if len(list.Data) != 2 {
			t.Fatalf("alerts: %d", len(list.Data))
		}

		// Deleting the config keeps its alerts.
		wantCode(t, s.Do(t, "DELETE", "/alerts/configs/"+cfg.ID, s.Key, nil), http.StatusNoContent)
		wantCode(t, s.Do(t, "GET", "/alerts/configs/"+cfg.ID, s.Key, nil), http.StatusNotFound)
		wantCode(t, s.Do(t, "GET", "/alerts/"+id, s.Key, nil), http.StatusOK)
		wantCode(t, s.Do(t, "GET", "/alerts/0190a3b4-0000-7000-8000-000000000000", s.Key, nil), http.StatusNotFound)

		// Webhooks need an existing secret and an http(s) URL.
		other := createAlertConfig(t, s, map[string]any{"alert_type": "run_failed"})
		wantCode(t, s.Do(t, "PUT", "/alerts/configs/"+other+"/webhook", s.Key, map[string]any{"url": "https://example.com/h", "secret_name": "NOPE"}), http.StatusUnprocessableEntity)
		s.Do(t, "PUT", "/secrets/HOOK", s.Key, map[string]any{"value": "v", "hosts": []string{"example.com"}})
		// A secret goes, as a signature too, only to the hosts it is bound to.
		r = s.Do(t, "PUT", "/alerts/configs/"+other+"/webhook", s.Key, map[string]any{"url": "https://example.com:8443/h", "secret_name": "HOOK"})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "secret_name") || !strings.Contains(string(r.Body), "bound to example.com") {
			t.Fatalf("webhook to a host the secret is not bound to: %d %s", r.Status, r.Body)
		}
		wantCode(t, s.Do(t, "PUT", "/alerts/configs/"+other+"/webhook", s.Key, map[string]any{"url": "https://evil.example/h", "secret_name": "HOOK"}), http.StatusUnprocessableEntity)
		wantCode(t, s.Do(t, "PUT", "/alerts/configs/"+other+"/webhook", s.Key, map[string]any{"url": "ftp://example.com/h", "secret_name": "HOOK"}), http.StatusUnprocessableEntity)
		r = s.Do(t, "PUT", "/alerts/configs/"+other+"/webhook", s.Key, map[string]any{"url": "https://example.com/h", "secret_name": "HOOK"})
		wantCode(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), `"v"`) {
			t.Fatalf("the secret's value leaked: %s", r.Body)
		}
		wantCode(t, s.Do(t, "DELETE", "/alerts/configs/"+other+"/webhook", s.Key, nil), http.StatusNoContent)
		var hook struct{ URL *string }
		s.Do(t, "GET", "/alerts/configs/"+other+"/webhook", s.Key, nil).JSON(t, &hook)
		if hook.URL != nil {
			t.Errorf("webhook not cleared: %v", *hook.URL)
		}
	})
}

func createAlertConfig(t *testing.T, s *testserver.Server, body map[string]any) string {
	t.Helper()
	r := s.Do(t, "POST", "/alerts/configs", s.Key, body)
	wantCode(t, r, http.StatusCreated)
	var c struct{ ID string }
	r.JSON(t, &c)
	return c.ID
}

// Organization preferences: owners and admins opt out per type; the list
// shows overrides, or every type with include_defaults; an opted-out
// admin is not among an owner_admins config's subscribers.
func TestOrganizationAlertPreferences(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		org, err := directory.CreateOrganization(ctx, s.DB, "Org", s.UserID, 100)
		if err != nil {
			t.Fatal(err)
		}
		admin := s.NewTenant(t, "admin")
		member := s.NewTenant(t, "member")
		if err := directory.AddMember(ctx, s.DB, org.ID, admin.UserID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, s.DB, org.ID, member.UserID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		adminKey := s.IssueKey(t, org.ID, admin.UserID, store.RoleAdmin)
		memberKey := s.IssueKey(t, org.ID, member.UserID, store.RoleMember)

		path := "/alerts/organization-preferences/" + org.ID + "/run_failed"
		r := s.Do(t, "PATCH", path, adminKey, map[string]any{"subscribed": false})
		wantCode(t, r, http.StatusOK)
		var p struct {
			Subscribed bool `json:"subscribed"`
			IsOverride bool `json:"is_override"`
		}
		r.JSON(t, &p)
		if p.Subscribed || !p.IsOverride {
			t.Fatalf("opt-out: %s", r.Body)
		}
		wantCode(t, s.Do(t, "PATCH", path, memberKey, map[string]any{"subscribed": false}), http.StatusForbidden)
		wantCode(t, s.Do(t, "PATCH", "/alerts/organization-preferences/"+org.ID+"/bogus", adminKey, map[string]any{"subscribed": false}), http.StatusUnprocessableEntity)
		// Not a member: not found.
		outsider := s.NewTenant(t, "outsider")
		wantCode(t, s.Do(t, "PATCH", path, outsider.Key, map[string]any{"subscribed": false}), http.StatusNotFound)

		var list struct {
			Preferences []struct {
				OrganizationID string `json:"organization_id"`
				AlertType      string `json:"alert_type"`
				Subscribed     bool   `json:"subscribed"`
				IsOverride     bool   `json:"is_override"`
			} `json:"preferences"`
			Total int `json:"total"`
		}
		s.Do(t, "GET", "/alerts/organization-preferences/list", adminKey, nil).JSON(t, &list)
		if list.Total != 1 || list.Preferences[0].AlertType != "run_failed" || list.Preferences[0].Subscribed {
			t.Fatalf("overrides: %+v", list)
		}
		s.Do(t, "GET", "/alerts/organization-preferences/list?include_defaults=true&organization_id="+org.ID, adminKey, nil).JSON(t, &list)
		if list.Total != len(alerts.AllTypes) {
			t.Fatalf("with defaults: %d entries, want %d", list.Total, len(alerts.AllTypes))
		}
		s.Do(t, "GET", "/alerts/organization-preferences/list?include_defaults=true", memberKey, nil).JSON(t, &list)
		if list.Total != 0 {
			t.Errorf("a member manages no organization: %+v", list)
		}

		// Distribution: owner_admins less the admin who opted out.
		ownerKey := s.IssueKey(t, org.ID, s.UserID, store.RoleOwner)
		r = s.Do(t, "POST", "/alerts/configs", ownerKey, map[string]any{"alert_type": "run_failed"})
		wantCode(t, r, http.StatusCreated)
		var cfg struct {
			DistributionType string `json:"distribution_type"`
		}
		r.JSON(t, &cfg)
		if cfg.DistributionType != "owner_admins" {
			t.Errorf("organizations are normalized to owner_admins, got %s", cfg.DistributionType)
		}
		createBody := map[string]any{"alert_type": "governance_flagged"}
		wantCode(t, s.Do(t, "POST", "/alerts/configs", ownerKey, createBody), http.StatusCreated)
		_ = s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: org.ID, Type: "governance_flagged"})
		var listed struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		s.Do(t, "GET", "/alerts", ownerKey, nil).JSON(t, &listed)
		if len(listed.Data) != 1 {
			t.Fatalf("org alerts: %+v", listed)
		}
		var det alertDetail
		s.Do(t, "GET", "/alerts/"+listed.Data[0].ID, ownerKey, nil).JSON(t, &det)
		if len(det.Subscribers) != 2 {
			t.Fatalf("owner and admin should be subscribed: %+v", det.Subscribers)
		}
		// Opted out of governance_flagged: the admin is left out next time.
		wantCode(t, s.Do(t, "PATCH", "/alerts/organization-preferences/"+org.ID+"/governance_flagged", adminKey, map[string]any{"subscribed": false}), http.StatusOK)
		wantCode(t, s.Do(t, "POST", "/alerts/"+listed.Data[0].ID+"/status", ownerKey, map[string]any{"status": "resolved"}), http.StatusOK)
		s.DB.W.ExecContext(ctx, `UPDATE alert_configs SET cooldown_minutes = 0 WHERE account_id = $1`, org.ID)
		_ = s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: org.ID, Type: "governance_flagged"})
		s.Do(t, "GET", "/alerts?status=triggered", ownerKey, nil).JSON(t, &listed)
		if len(listed.Data) != 1 {
			t.Fatalf("second org alert: %+v", listed)
		}
		s.Do(t, "GET", "/alerts/"+listed.Data[0].ID, ownerKey, nil).JSON(t, &det)
		if len(det.Subscribers) != 1 || det.Subscribers[0].UserID != s.UserID {
			t.Fatalf("the opted-out admin is still subscribed: %+v", det.Subscribers)
		}
		// Subscribing back restores the default.
		s.Do(t, "PATCH", "/alerts/organization-preferences/"+org.ID+"/governance_flagged", adminKey, map[string]any{"subscribed": true}).JSON(t, &p)
		if !p.Subscribed || p.IsOverride {
			t.Errorf("back to default: %+v", p)
		}
	})
}

// An agent's alert configs are bounded: the one past the limit is a 422
// that names the field and says why.
func TestAlertConfigLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := s.StoreAgent(t, s.AccountID, "A", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")
		for range alerts.MaxAlertConfigsPerScope {
			if _, err := s.S.Alerts.CreateConfig(context.Background(), s.AccountID, alerts.ConfigInput{AlertType: "run_failed", AgentID: &agent}); err != nil {
				t.Fatal(err)
			}
		}
		r := s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "run_failed", "agent_id": agent})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "at most 100 alert configs") ||
			!strings.Contains(string(r.Body), `"agent_id"`) {
			t.Errorf("past the limit: %d %s", r.Status, r.Body)
		}
		// The account's own configs are counted apart from the agent's.
		wantCode(t, s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "run_failed"}), http.StatusCreated)
	})
}
