package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Alerts: configs, alerts with their threads, organization preferences.

// alAgent stores an agent in the exercise's account.
func alAgent(t *testing.T, e *Env) string {
	t.Helper()
	return e.StoreAgent(t, e.Tenant.AccountID, "Watched", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")
}

// alConfig creates a config of the given body and returns its id as config_id (and the agent as agent_id).
func alConfig(body map[string]any) func(t *testing.T, e *Env) Vars {
	return func(t *testing.T, e *Env) Vars {
		agent := alAgent(t, e)
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		if b["agent_id"] == "{agent}" {
			b["agent_id"] = agent
		}
		r := e.Do(t, http.MethodPost, "/alerts/configs", b)
		if r.Status != http.StatusCreated {
			t.Fatalf("config: %d %s", r.Status, r.Body)
		}
		var c struct{ ID string }
		r.JSON(t, &c)
		return Vars{"config_id": c.ID, "agent_id": agent}
	}
}

// alAlert raises an alert in the exercise's account (with a comment, so
// every part of the detail is filled) and returns its id as alert_id.
func alAlert(t *testing.T, e *Env) Vars {
	v := alConfig(map[string]any{"alert_type": "governance_blocked", "agent_id": "{agent}", "threshold": map[string]any{"note": "x"}})(t, e)
	if err := e.S.Alerts.Raise(context.Background(), alerts.Signal{AccountID: e.Tenant.AccountID, Type: "governance_blocked",
		AgentID: v["agent_id"], Message: "A card number in the input", Details: map[string]any{"rule": "pii.card"}}); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	e.Do(t, http.MethodGet, "/alerts", nil).JSON(t, &l)
	if len(l.Data) != 1 {
		t.Fatalf("alerts: %+v", l)
	}
	e.Do(t, http.MethodPost, "/alerts/"+l.Data[0].ID+"/comments", map[string]any{"body": "seen"})
	v["alert_id"] = l.Data[0].ID
	return v
}

// alOrg makes an organization the exercise's user owns.
func alOrg(t *testing.T, e *Env) Vars {
	org, err := directory.CreateOrganization(context.Background(), e.DB, "Org", e.Tenant.UserID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"organization_id": org.ID}
}

// alTotal expects the list's total (legacy or envelope).
func alTotal(n int) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		var body struct {
			Total      *int `json:"total"`
			Pagination *struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		r.JSON(t, &body)
		got := -1
		if body.Total != nil {
			got = *body.Total
		} else if body.Pagination != nil {
			got = body.Pagination.Total
		}
		if got != n {
			t.Errorf("total %d, want %d", got, n)
		}
	}
}

// alStatus expects the detail's alert status.
func alStatus(want string) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		var d struct {
			Alert struct {
				Status string `json:"status"`
			} `json:"alert"`
		}
		r.JSON(t, &d)
		if d.Alert.Status != want {
			t.Errorf("status %s, want %s", d.Alert.Status, want)
		}
	}
}

func init() {
	strict := []string{version.Header + ": " + version.StrictEnvelope}
	unknown := "0190a3b4-0000-7000-8000-000000000000"
	runFailed := map[string]any{"alert_type": "run_failed", "agent_id": "{agent}"}
	register(
		Exercise{Op: "GET /alerts", Name: "none", Status: http.StatusOK, Check: alTotal(0)},
		Exercise{Op: "GET /alerts", Name: "filtered", Setup: alAlert, Status: http.StatusOK, Check: alTotal(1),
			Path: "/alerts?status=triggered&agent_id={agent_id}&time_from=2020-01-01T00:00:00Z&time_to=2100-01-01T00:00:00Z&page=1&limit=5"},
		Exercise{Op: "GET /alerts", Name: "strict version", Setup: alAlert, Headers: strict, Status: http.StatusOK, Check: alTotal(1)},
		Exercise{Op: "GET /alerts", Name: "severity is ignored before 2026-07-27", Path: "/alerts?severity=high", Status: http.StatusOK},
		Exercise{Op: "GET /alerts", Name: "severity is refused at 2026-07-27", Path: "/alerts?severity=high", Headers: strict,
			Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "severity")},
		Exercise{Op: "GET /alerts", Name: "bad time", Path: "/alerts?time_from=tomorrow", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "time_from")},
		Exercise{Op: "GET /alerts", Name: "limit too large", Path: "/alerts?limit=101", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "limit")},

		Exercise{Op: "GET /alerts/configs", Name: "by agent", Setup: alConfig(runFailed), Path: "/alerts/configs?agent_id={agent_id}",
			Status: http.StatusOK, Check: alTotal(1)},
		Exercise{Op: "GET /alerts/configs", Name: "account-level source configs", Setup: alConfig(map[string]any{"alert_type": "pull_failed"}),
			Path: "/alerts/configs?scope=source", Status: http.StatusOK, Check: alTotal(1)},
		Exercise{Op: "GET /alerts/configs", Name: "strict envelope", Setup: alConfig(map[string]any{"alert_type": "credits_low_threshold"}),
			Headers: strict, Status: http.StatusOK, Schema: Envelope("AlertConfigResponse"), Check: alTotal(1)},
		Exercise{Op: "GET /alerts/configs", Name: "unknown scope", Path: "/alerts/configs?scope=galaxy", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "scope")},

		Exercise{Op: "POST /alerts/configs", Name: "agent alert", Setup: func(t *testing.T, e *Env) Vars { return Vars{"agent_id": alAgent(t, e)} },
			Body: func(v Vars) any {
				return map[string]any{"alert_type": "consecutive_failures", "agent_id": v["agent_id"], "threshold": map[string]any{"count": 3},
					"cooldown_minutes": 15, "distribution_type": "owner_admins"}
			}, Status: http.StatusCreated},
		Exercise{Op: "POST /alerts/configs", Name: "source alert", Setup: knSource, Body: func(v Vars) any {
			return map[string]any{"alert_type": "pull_error_rate_spike", "source_connection_id": v["source_connection_id"], "threshold": map[string]any{"rate": 0.3}}
		}, Status: http.StatusCreated},
		Exercise{Op: "POST /alerts/configs", Name: "source alert naming no source of the account", Body: map[string]any{"alert_type": "pull_error_rate_spike",
			"source_connection_id": "0190a3b4-0000-7000-8000-0000000000c1"}, Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "source_connection_id")},
		Exercise{Op: "POST /alerts/configs", Name: "selected members without recipients", Body: map[string]any{"alert_type": "run_failed",
			"distribution_type": "selected_members"}, Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "recipient_user_ids")},
		Exercise{Op: "POST /alerts/configs", Name: "unknown type", Body: map[string]any{"alert_type": "meteor"}, Status: http.StatusUnprocessableEntity,
			Check: expectLoc("body", "alert_type")},
		Exercise{Op: "POST /alerts/configs", Name: "bad threshold", Body: map[string]any{"alert_type": "slow_run", "threshold": map[string]any{"seconds": -1}},
			Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "threshold")},

		Exercise{Op: "GET /alerts/configs/{config_id}", Name: "one", Setup: alConfig(runFailed), Status: http.StatusOK},
		Exercise{Op: "GET /alerts/configs/{config_id}", Name: "unknown", Path: "/alerts/configs/" + unknown, Status: http.StatusNotFound},
		Exercise{Op: "GET /alerts/configs/{config_id}", Name: "malformed id", Path: "/alerts/configs/nope", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("path", "config_id")},

		Exercise{Op: "PATCH /alerts/configs/{config_id}", Name: "change", Setup: alConfig(runFailed),
			Body: map[string]any{"enabled": false, "cooldown_minutes": 5, "threshold": map[string]any{"k": "v"}}, Status: http.StatusOK,
			Check: func(t *testing.T, _ *Env, r testserver.Response) {
				var c struct {
					Enabled         bool `json:"enabled"`
					CooldownMinutes int  `json:"cooldown_minutes"`
				}
				r.JSON(t, &c)
				if c.Enabled || c.CooldownMinutes != 5 {
					t.Errorf("patched: %s", r.Body)
				}
			}},
		Exercise{Op: "PATCH /alerts/configs/{config_id}", Name: "bad distribution", Setup: alConfig(runFailed),
			Body: map[string]any{"distribution_type": "all"}, Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "distribution_type")},
		Exercise{Op: "PATCH /alerts/configs/{config_id}", Name: "unknown", Path: "/alerts/configs/" + unknown, Body: map[string]any{}, Status: http.StatusNotFound},

		Exercise{Op: "DELETE /alerts/configs/{config_id}", Name: "delete", Setup: alConfig(runFailed), Status: http.StatusNoContent},
		Exercise{Op: "DELETE /alerts/configs/{config_id}", Name: "unknown", Path: "/alerts/configs/" + unknown, Status: http.StatusNotFound},
		Exercise{Op: "DELETE /alerts/configs/{config_id}", Name: "malformed id", Path: "/alerts/configs/nope", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("path", "config_id")},

		Exercise{Op: "GET /alerts/organization-preferences/list", Name: "overrides", Setup: func(t *testing.T, e *Env) Vars {
			v := alOrg(t, e)
			e.Do(t, http.MethodPatch, "/alerts/organization-preferences/"+v["organization_id"]+"/run_burst", map[string]any{"subscribed": false})
			return v
		}, Status: http.StatusOK, Check: alTotal(1)},
		Exercise{Op: "GET /alerts/organization-preferences/list", Name: "with defaults", Setup: alOrg,
			Path: "/alerts/organization-preferences/list?include_defaults=true&organization_id={organization_id}", Status: http.StatusOK,
			Check: alTotal(len(alerts.AllTypes))},
		Exercise{Op: "GET /alerts/organization-preferences/list", Name: "malformed organization", Path: "/alerts/organization-preferences/list?organization_id=x",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "organization_id")},

		Exercise{Op: "PATCH /alerts/organization-preferences/{organization_id}/{alert_type}", Name: "opt out", Setup: alOrg,
			Path: "/alerts/organization-preferences/{organization_id}/error_rate_spike", Body: map[string]any{"subscribed": false}, Status: http.StatusOK},
		Exercise{Op: "PATCH /alerts/organization-preferences/{organization_id}/{alert_type}", Name: "unknown type", Setup: alOrg,
			Path: "/alerts/organization-preferences/{organization_id}/meteor", Body: map[string]any{"subscribed": false},
			Status: http.StatusUnprocessableEntity, Check: expectLoc("path", "alert_type")},
		Exercise{Op: "PATCH /alerts/organization-preferences/{organization_id}/{alert_type}", Name: "not a member",
			Path: "/alerts/organization-preferences/" + unknown + "/run_failed", Body: map[string]any{"subscribed": false}, Status: http.StatusNotFound},

		Exercise{Op: "GET /alerts/{alert_id}", Name: "detail", Setup: alAlert, Status: http.StatusOK, Check: alStatus("triggered")},
		Exercise{Op: "GET /alerts/{alert_id}", Name: "unknown", Path: "/alerts/" + unknown, Status: http.StatusNotFound},
		Exercise{Op: "GET /alerts/{alert_id}", Name: "malformed id", Path: "/alerts/nope", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("path", "alert_id")},

		Exercise{Op: "POST /alerts/{alert_id}/comments", Name: "comment", Setup: alAlert, Body: map[string]any{"body": "On it."}, Status: http.StatusOK,
			Check: func(t *testing.T, _ *Env, r testserver.Response) {
				var d struct {
					Comments []json.RawMessage `json:"comments"`
				}
				r.JSON(t, &d)
				if len(d.Comments) != 2 {
					t.Errorf("comments: %d", len(d.Comments))
				}
			}},
		Exercise{Op: "POST /alerts/{alert_id}/comments", Name: "empty", Setup: alAlert, Body: map[string]any{"body": ""},
			Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "body")},

		Exercise{Op: "POST /alerts/{alert_id}/status", Name: "acknowledge", Setup: alAlert, Body: map[string]any{"status": "acknowledged", "note": "mine"},
			Status: http.StatusOK, Check: alStatus("acknowledged")},
		Exercise{Op: "POST /alerts/{alert_id}/status", Name: "resolve", Setup: alAlert, Body: map[string]any{"status": "resolved"},
			Status: http.StatusOK, Check: alStatus("resolved")},
		Exercise{Op: "POST /alerts/{alert_id}/status", Name: "unknown status", Setup: alAlert, Body: map[string]any{"status": "closed"},
			Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "status")},

		Exercise{Op: "POST /alerts/{alert_id}/subscribe", Name: "subscribe", Setup: alAlert, Status: http.StatusOK},
		Exercise{Op: "POST /alerts/{alert_id}/subscribe", Name: "unknown", Path: "/alerts/" + unknown + "/subscribe", Status: http.StatusNotFound},
		Exercise{Op: "POST /alerts/{alert_id}/unsubscribe", Name: "unsubscribe", Setup: alAlert, Status: http.StatusOK,
			Check: func(t *testing.T, _ *Env, r testserver.Response) {
				var d struct {
					Alert struct {
						IsSubscribed bool `json:"is_subscribed"`
					} `json:"alert"`
				}
				r.JSON(t, &d)
				if d.Alert.IsSubscribed {
					t.Error("still subscribed")
				}
			}},
		Exercise{Op: "POST /alerts/{alert_id}/unsubscribe", Name: "unknown", Path: "/alerts/" + unknown + "/unsubscribe", Status: http.StatusNotFound},
		Exercise{Op: "POST /alerts/{alert_id}/subscribe", Name: "malformed id", Path: "/alerts/nope/subscribe", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("path", "alert_id")},
		Exercise{Op: "POST /alerts/{alert_id}/unsubscribe", Name: "malformed id", Path: "/alerts/nope/unsubscribe", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("path", "alert_id")},
	)
}
