package isolation

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
)

// Inbound mail: A's email trigger settings, blocklist, mode, rejections,
// breaker and parked runs are A's; B neither sees nor changes them.
func init() {
	register(
		Case{
			Op: "PUT /agents/{agent_id}/triggers/{trigger_id}/email-config", Name: "B cannot configure A's email trigger",
			Setup:   emailAgentOfA,
			Body:    map[string]any{"alias": "taken"},
			Expect:  NotFound(),
			Control: Status(http.StatusOK),
		},
		Case{
			Op: "GET /agents/blocked-email-senders", Name: "B does not list A's blocked senders",
			Setup:   blockedOfA,
			Expect:  Status(http.StatusOK, EmptyList("items")),
			Control: Status(http.StatusOK, NonEmptyList("items")),
		},
		Case{
			Op: "POST /agents/blocked-email-senders", Name: "B's block is B's own",
			Setup: blockedOfA,
			Body:  map[string]any{"sender_email": "spam@bad.example"},
			Expect: Status(http.StatusCreated, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				var b struct{ ID string }
				r.JSON(t, &b)
				if b.ID == c.Vars["blocked_id"] {
					t.Errorf("B was handed A's blocklist entry")
				}
				if l, _ := c.S.MailProtect.Blocked(context.Background(), c.A.AccountID, 10, 0); l.Total != 1 {
					t.Errorf("A's blocklist has %d entries, want 1", l.Total)
				}
			}),
			NoControl: true,
		},
		Case{
			Op: "PUT /agents/blocked-email-senders/mode", Name: "B's mode does not change A's",
			Setup: func(t *testing.T, c *Ctx) Vars {
				if err := c.S.MailProtect.SetMode(context.Background(), c.A.AccountID, "input"); err != nil {
					t.Fatal(err)
				}
				return Vars{}
			},
			Body: map[string]any{"mode": "input_and_output"},
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				if mode, _ := c.S.MailProtect.Mode(context.Background(), c.A.AccountID); mode != "input" {
					t.Errorf("A's mode is %q after B's change", mode)
				}
			}),
			NoControl: true,
		},
		Case{
			Op: "DELETE /agents/blocked-email-senders/{blocked_id}", Name: "B cannot unblock A's entry",
			Setup:   blockedOfA,
			Expect:  NotFound(),
			Control: Status(http.StatusNoContent),
		},
		Case{
			Op: "GET /agents/inbound-email-rejections", Name: "B does not list A's rejections",
			Setup: func(t *testing.T, c *Ctx) Vars {
				if _, err := c.S.MailProtect.RecordRejection(context.Background(), protect.Rejection{AccountID: c.A.AccountID,
					Recipient: "x@agent.localhost", Sender: "eve@spoof.example", Reason: "unauthorized_sender"}); err != nil {
					t.Fatal(err)
				}
				return Vars{}
			},
			Expect:  Status(http.StatusOK, EmptyList("")),
			Control: Status(http.StatusOK, NonEmptyList("")),
		},
		Case{
			Op: "GET /agents/inbound-email-status", Name: "B does not see A's pause or backlog",
			Setup: pausedWithQueuedRunOfA,
			Expect: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"paused":false`) || !strings.Contains(string(r.Body), `"queued_backlog":0`) {
					t.Errorf("B sees A's state: %s", r.Body)
				}
			}),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"paused":true`) || !strings.Contains(string(r.Body), `"queued_backlog":1`) {
					t.Errorf("A's state: %s", r.Body)
				}
			}),
		},
		Case{
			Op: "POST /agents/inbound-email-status/cancel-queued", Name: "B cannot cancel A's queued runs",
			Setup: pausedWithQueuedRunOfA,
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"cancelled":0`) {
					t.Errorf("B cancelled: %s", r.Body)
				}
				if st, _ := c.S.MailProtect.Status(context.Background(), c.A.AccountID); st.QueuedBacklog != 1 {
					t.Errorf("A has %d queued runs after B's cancel", st.QueuedBacklog)
				}
			}),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"cancelled":1`) {
					t.Errorf("A's cancel: %s", r.Body)
				}
			}),
		},
		Case{
			Op: "POST /agents/inbound-email-status/resume", Name: "B cannot resume A's inbound",
			Setup: pausedWithQueuedRunOfA,
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"resumed":false`) {
					t.Errorf("B resumed: %s", r.Body)
				}
				if paused, _ := c.S.MailProtect.Paused(context.Background(), c.A.AccountID); !paused {
					t.Errorf("A's inbound resumed by B")
				}
			}),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"resumed":true`) {
					t.Errorf("A's resume: %s", r.Body)
				}
			}),
		},
	)
}

func emailAgentOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	id := c.StoreAgent(t, c.A.AccountID, "inbox", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "email_received")
	tr, err := agents.NewRepo(c.DB).AgentTrigger(context.Background(), c.A.AccountID, id)
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"agent_id": id, "trigger_id": tr.ID}
}

func blockedOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	b, err := c.S.MailProtect.Block(context.Background(), c.A.AccountID, "spam@bad.example", "address", "", "manual")
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"blocked_id": b.ID}
}

func pausedWithQueuedRunOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	v := emailAgentOfA(t, c)
	in := `{"subject":"parked"}`
	if _, err := runs.NewRepo(c.DB, nil).CreateRun(context.Background(), runs.Run{AccountID: c.A.AccountID, AgentID: v["agent_id"], Status: runs.RunQueued,
		TriggerType: "email_received", Input: &in, Metadata: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.S.MailProtect.SetPaused(context.Background(), c.A.AccountID, true); err != nil {
		t.Fatal(err)
	}
	return v
}
