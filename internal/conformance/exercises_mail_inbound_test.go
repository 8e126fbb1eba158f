package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Inbound mail: trigger email settings, blocklist, rejections, breaker.
func init() {
	strict := []string{version.Header + ": " + version.StrictEnvelope}
	cfgPath := "/agents/{agent_id}/triggers/{trigger_id}/email-config"
	register(
		Exercise{Op: "PUT " + cfgPath, Name: "alias and allowlist", Status: http.StatusOK, Setup: emailAgent,
			Body: map[string]any{"alias": "help.desk", "allowed_senders": []string{"example.com", "Boss@Example.org"}, "queue_on_quota": true},
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				body := string(r.Body)
				if !strings.Contains(body, `"email_alias":"help.desk"`) || !strings.Contains(body, `"boss@example.org"`) ||
					!strings.Contains(body, "help.desk."+e.Tenant.AccountID+"@agent.localhost") || !strings.Contains(body, `"email_queue_on_quota":true`) {
					t.Errorf("answer %s", body)
				}
			}},
		Exercise{Op: "PUT " + cfgPath, Name: "omitted fields stay, null clears", Status: http.StatusOK, Setup: emailAgent,
			Body: `{"alias": null, "allowed_senders": null}`,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				if !strings.Contains(string(r.Body), `"email_alias":null`) || !strings.Contains(string(r.Body), `"email_require_sender_auth":true`) {
					t.Errorf("answer %s", r.Body)
				}
			}},
		Exercise{Op: "PUT " + cfgPath, Name: "alias shaped like a UUID", Status: http.StatusUnprocessableEntity, Setup: emailAgent,
			Body: map[string]any{"alias": "0190f2a4-7b7e-7c1e-9d2e-3f4a5b6c7d8e"}, Check: expectLoc("body", "alias")},
		Exercise{Op: "PUT " + cfgPath, Name: "alias too long", Status: http.StatusUnprocessableEntity, Setup: emailAgent,
			Body: map[string]any{"alias": strings.Repeat("a", 33)}},
		Exercise{Op: "PUT " + cfgPath, Name: "alias ending in a dot", Status: http.StatusUnprocessableEntity, Setup: emailAgent,
			Body: map[string]any{"alias": "help."}, Check: expectLoc("body", "alias")},
		Exercise{Op: "PUT " + cfgPath, Name: "not an address or domain", Status: http.StatusUnprocessableEntity, Setup: emailAgent,
			Body: map[string]any{"allowed_senders": []string{"not a domain"}}, Check: expectLoc("body", "allowed_senders")},
		Exercise{Op: "PUT " + cfgPath, Name: "a trigger of another agent", Status: http.StatusNotFound,
			Setup: func(t *testing.T, e *Env) Vars {
				v := emailAgent(t, e)
				v["trigger_id"] = emailAgent(t, e)["trigger_id"]
				return v
			}, Body: map[string]any{"alias": "x"}},
		Exercise{Op: "PUT " + cfgPath, Name: "not an email trigger", Status: http.StatusBadRequest,
			Setup: func(t *testing.T, e *Env) Vars {
				id := e.StoreAgent(t, e.Tenant.AccountID, "api", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")
				tr, _ := agents.NewRepo(e.DB).AgentTrigger(context.Background(), e.Tenant.AccountID, id)
				return Vars{"agent_id": id, "trigger_id": tr.ID}
			}, Body: map[string]any{"alias": "x"}},

		Exercise{Op: "GET /agents/blocked-email-senders", Name: "with an entry", Status: http.StatusOK, Setup: blockedEntry},
		Exercise{Op: "GET /agents/blocked-email-senders", Name: "strict envelope", Status: http.StatusOK, Setup: blockedEntry,
			Headers: strict, Schema: Envelope("BlockedEmailSenderResponse"),
			// No other operation answers the mode: it stays beside data.
			Check: agWantBody(`"auto_block_mode":"disabled"`)},
		Exercise{Op: "GET /agents/blocked-email-senders", Name: "limit above the maximum", Status: http.StatusUnprocessableEntity,
			Path: "/agents/blocked-email-senders?limit=201"},
		Exercise{Op: "POST /agents/blocked-email-senders", Name: "block a domain", Status: http.StatusCreated,
			Body: map[string]any{"sender_email": "spam.example", "match_type": "domain", "note": "noisy"}},
		Exercise{Op: "POST /agents/blocked-email-senders", Name: "block an address", Status: http.StatusCreated,
			Body: map[string]any{"sender_email": "eve@spam.example"}},
		Exercise{Op: "POST /agents/blocked-email-senders", Name: "bad match type", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"sender_email": "eve@spam.example", "match_type": "regex"}, Check: expectLoc("body", "match_type")},
		Exercise{Op: "POST /agents/blocked-email-senders", Name: "not an address", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"sender_email": "eve at spam"}, Check: expectLoc("body", "sender_email")},
		Exercise{Op: "POST /agents/blocked-email-senders", Name: "member may not block", As: Member, Status: http.StatusForbidden,
			Body: map[string]any{"sender_email": "eve@spam.example"}},
		Exercise{Op: "PUT /agents/blocked-email-senders/mode", Name: "input_and_output", Status: http.StatusOK,
			Body: map[string]any{"mode": "input_and_output"},
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				if !strings.Contains(string(r.Body), `"auto_block_mode":"input_and_output"`) {
					t.Errorf("answer %s", r.Body)
				}
			}},
		Exercise{Op: "PUT /agents/blocked-email-senders/mode", Name: "strict envelope keeps the mode", Status: http.StatusOK,
			Headers: strict, Schema: Envelope("BlockedEmailSenderResponse"), Body: map[string]any{"mode": "input"},
			Check: agWantBody(`"auto_block_mode":"input"`)},
		Exercise{Op: "PUT /agents/blocked-email-senders/mode", Name: "unknown mode", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"mode": "always"}, Check: expectLoc("body", "mode")},
		Exercise{Op: "DELETE /agents/blocked-email-senders/{blocked_id}", Name: "unblock", Status: http.StatusNoContent, Setup: blockedEntry},
		Exercise{Op: "DELETE /agents/blocked-email-senders/{blocked_id}", Name: "not a UUID", Status: http.StatusUnprocessableEntity,
			Path: "/agents/blocked-email-senders/not-an-id"},
		Exercise{Op: "DELETE /agents/blocked-email-senders/{blocked_id}", Name: "unknown id", Status: http.StatusNotFound,
			Setup: func(t *testing.T, e *Env) Vars { return Vars{"blocked_id": "0190f2a4-7b7e-7c1e-9d2e-3f4a5b6c7d8e"} }},

		Exercise{Op: "GET /agents/inbound-email-rejections", Name: "with a rejection", Status: http.StatusOK, Setup: rejection},
		Exercise{Op: "GET /agents/inbound-email-rejections", Name: "strict envelope", Status: http.StatusOK, Setup: rejection,
			Headers: strict, Schema: Envelope("InboundEmailRejectionResponse")},
		Exercise{Op: "GET /agents/inbound-email-rejections", Name: "limit zero", Status: http.StatusUnprocessableEntity,
			Path: "/agents/inbound-email-rejections?limit=0"},
		Exercise{Op: "GET /agents/inbound-email-status", Name: "paused with a backlog", Status: http.StatusOK, Setup: pausedBacklog,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				if strings.TrimSpace(string(r.Body)) != `{"paused":true,"queued_backlog":1}` {
					t.Errorf("answer %s", r.Body)
				}
			}},
		Exercise{Op: "POST /agents/inbound-email-status/cancel-queued", Name: "cancels the backlog", Status: http.StatusOK, Setup: pausedBacklog,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				if strings.TrimSpace(string(r.Body)) != `{"cancelled":1}` {
					t.Errorf("answer %s", r.Body)
				}
			}},
		Exercise{Op: "POST /agents/inbound-email-status/cancel-queued", Name: "member may not cancel", As: Member, Status: http.StatusForbidden},
		Exercise{Op: "POST /agents/inbound-email-status/resume", Name: "lifts the pause", Status: http.StatusOK, Setup: pausedBacklog,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				if strings.TrimSpace(string(r.Body)) != `{"resumed":true}` {
					t.Errorf("answer %s", r.Body)
				}
			}},
		Exercise{Op: "POST /agents/inbound-email-status/resume", Name: "member may not resume", As: Member, Status: http.StatusForbidden},
	)
}

func emailAgent(t *testing.T, e *Env) Vars {
	t.Helper()
	id := e.StoreAgent(t, e.Tenant.AccountID, "inbox", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "email_received")
	tr, err := agents.NewRepo(e.DB).AgentTrigger(context.Background(), e.Tenant.AccountID, id)
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"agent_id": id, "trigger_id": tr.ID}
}

func blockedEntry(t *testing.T, e *Env) Vars {
	t.Helper()
	b, err := e.S.MailProtect.Block(context.Background(), e.Tenant.AccountID, "eve@spam.example", "address", "spoofing", "manual")
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"blocked_id": b.ID}
}

func rejection(t *testing.T, e *Env) Vars {
	t.Helper()
	v := emailAgent(t, e)
	if _, err := e.S.MailProtect.RecordRejection(context.Background(), protect.Rejection{AccountID: e.Tenant.AccountID, AgentID: v["agent_id"],
		Recipient: v["agent_id"] + "@agent.localhost", Sender: "eve@spoof.example", SenderIP: "192.0.2.7", Reason: "unauthorized_sender",
		MessageID: "<1@spoof.example>", Subject: "hello"}); err != nil {
		t.Fatal(err)
	}
	return v
}

func pausedBacklog(t *testing.T, e *Env) Vars {
	t.Helper()
	v := emailAgent(t, e)
	in := `{"subject":"parked"}`
	if _, err := runs.NewRepo(e.DB, nil).CreateRun(context.Background(), runs.Run{AccountID: e.Tenant.AccountID, AgentID: v["agent_id"], Status: runs.RunQueued,
		TriggerType: "email_received", Input: &in, Metadata: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.S.MailProtect.SetPaused(context.Background(), e.Tenant.AccountID, true); err != nil {
		t.Fatal(err)
	}
	return v
}
