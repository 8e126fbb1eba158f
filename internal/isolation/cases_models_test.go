package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/testserver"
)

// Models: the catalog is shared by every account, except last_used; the
// lifecycle alerts are the account's own.

// mdUsedByA records a metered call of openai_gpt_4o by account A, which
// makes it A's last used model.
func mdUsedByA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	if _, _, err := billing.NewCredits(c.DB).RecordUsage(context.Background(), billing.Usage{AccountID: c.A.AccountID, Purpose: "prompt_call",
		Model: "openai_gpt_4o", InputTokens: 1, Credits: 1}); err != nil {
		t.Fatal(err)
	}
	return nil
}

// mdLastUsed expects openai_gpt_4o's last_used flag, in a list or a detail.
func mdLastUsed(want bool) Expectation {
	return Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		var one struct {
			ID       string `json:"id"`
			LastUsed bool   `json:"last_used"`
		}
		var groups []struct {
			Models []struct {
				ID       string `json:"id"`
				LastUsed bool   `json:"last_used"`
			} `json:"models"`
		}
		if r.Body[0] == '[' {
			r.JSON(t, &groups)
			for _, g := range groups {
				for _, m := range g.Models {
					if m.ID == "openai_gpt_4o" {
						one.ID, one.LastUsed = m.ID, m.LastUsed
					}
				}
			}
		} else {
			r.JSON(t, &one)
		}
		if one.ID != "openai_gpt_4o" || one.LastUsed != want {
			t.Errorf("openai_gpt_4o last_used = %v, want %v", one.LastUsed, want)
		}
	})
}

// mdAlertOfA records an unread alert for account A.
func mdAlertOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	a, _, err := c.S.ModelAlerts.StoreAlert(context.Background(), modelalerts.ModelAlert{AccountID: c.A.AccountID,
		AgentID: "0190a3b4-0000-7000-8000-0000000000aa", ModelID: "openai_gpt_4_turbo", ModelName: "GPT-4 Turbo",
		Type: "model_sunset", Message: "A's agent uses a retired model", DedupeKey: "isolation"})
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"alert_id": a.ID}
}

// mdUnreadOf expects an account's unread count.
func mdUnreadOf(t testing.TB, c *Ctx, accountID string, want int) {
	t.Helper()
	n, err := c.S.ModelAlerts.UnreadCount(context.Background(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Errorf("unread alerts of %s: %d, want %d", accountID, n, want)
	}
}

func mdCount(want func(n int) bool) Expectation {
	return Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		var c struct{ Count int }
		r.JSON(t, &c)
		if !want(c.Count) {
			t.Errorf("count %d", c.Count)
		}
	})
}

func init() {
	register(
		Case{Op: "GET /models", Name: "A's last used model is not B's", Setup: mdUsedByA,
			Expect: mdLastUsed(false), Control: mdLastUsed(true)},
		Case{Op: "GET /models/{model_id}/details", Name: "A's last used model is not B's", Setup: mdUsedByA,
			Path: "/models/openai_gpt_4o/details", Expect: mdLastUsed(false), Control: mdLastUsed(true)},
		Case{Op: "GET /models/{model_id}/recommendations", Name: "the catalog is shared", Setup: mdUsedByA,
			Path: "/models/openai_gpt_4o/recommendations", Expect: Status(http.StatusOK)},
		Case{Op: "GET /models/generation-tiers", Name: "the tiers are shared", Expect: Status(http.StatusOK)},

		Case{Op: "GET /models/alerts", Name: "B lists alerts", Setup: mdAlertOfA,
			Expect: EmptyList("alerts"), Control: NonEmptyList("alerts")},
		Case{Op: "GET /models/alerts", Name: "B filters by A's agent", Setup: mdAlertOfA,
			Path:   "/models/alerts?agent_id=0190a3b4-0000-7000-8000-0000000000aa",
			Expect: EmptyList("alerts"), Control: NonEmptyList("alerts")},
		Case{Op: "GET /models/alerts/unread-count", Name: "B counts alerts", Setup: mdAlertOfA,
			Expect: mdCount(func(n int) bool { return n == 0 }), Control: mdCount(func(n int) bool { return n == 1 })},
		Case{Op: "PATCH /models/alerts/{alert_id}/read", Name: "B dismisses A's alert", Setup: mdAlertOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				mdUnreadOf(t, c, c.A.AccountID, 1)
			},
			Control: Status(http.StatusNoContent)},
		Case{Op: "POST /models/alerts/mark-all-read", Name: "B dismisses all", Setup: mdAlertOfA,
			Expect: Status(http.StatusNoContent, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				mdUnreadOf(t, c, c.A.AccountID, 1)
			}),
			Control: Status(http.StatusNoContent, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				mdUnreadOf(t, c, c.A.AccountID, 0)
			})},
	)
}
