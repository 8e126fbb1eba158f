package isolation

import (
	"github.com/agentry/agentry/internal/billing"
	"strings"

	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// Schedules (extension): B can neither list, add to, change nor remove the
// schedules of A's agent, nor reach A's schedule through an agent of its own.

// scOfA is a Setup with a scheduled agent of A and one schedule.
func scOfA(t *testing.T, c *Ctx) Vars {
	id := agCreateAs(t, c.AsA, map[string]any{"name": "A's report", "agent_template": "scheduled_report"})
	r := c.AsA(t, http.MethodPost, "/agents/"+id+"/schedules", map[string]any{"cron_expression": "0 9 * * 1", "timezone": "Europe/Paris", "input": "secret of A"})
	if r.Status != http.StatusCreated {
		t.Fatalf("add schedule: %d %s", r.Status, r.Body)
	}
	var sc struct {
		ID string `json:"id"`
	}
	r.JSON(t, &sc)
	return Vars{"agent_id": id, "schedule_id": sc.ID}
}

// scUnchanged checks, after B's 404, that A's schedule is as A left it.
func scUnchanged(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	var list []struct {
		ID             string  `json:"id"`
		CronExpression string  `json:"cron_expression"`
		Input          *string `json:"input"`
		Enabled        bool    `json:"enabled"`
	}
	got := c.AsA(t, http.MethodGet, "/agents/"+c.Vars["agent_id"]+"/schedules", nil)
	got.JSON(t, &list)
	if len(list) != 1 || list[0].ID != c.Vars["schedule_id"] || list[0].CronExpression != "0 9 * * 1" ||
		list[0].Input == nil || *list[0].Input != "secret of A" || !list[0].Enabled {
		t.Errorf("B's attempt changed A's schedules: %s", got.Body)
	}
}

func init() {
	register(
		Case{Op: "GET /agents/{agent_id}/schedules", Name: "B lists A's agent's schedules", Setup: scOfA, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/schedules", Name: "B adds a schedule to A's agent", Setup: scOfA,
			Body: map[string]any{"cron_expression": "* * * * *"}, Expect: scUnchanged, NoControl: true},
		Case{Op: "PUT /agents/{agent_id}/schedules/{schedule_id}", Name: "B disables A's schedule", Setup: scOfA,
			Body: map[string]any{"enabled": false, "input": "from B"}, Expect: scUnchanged, NoControl: true},
		Case{Op: "PUT /agents/{agent_id}/schedules/{schedule_id}", Name: "B changes A's schedule under its own agent",
			Setup: func(t *testing.T, c *Ctx) Vars {
				v := scOfA(t, c)
				v["b_agent"] = agCreateAs(t, c.AsB, map[string]any{"name": "B's report", "agent_template": "scheduled_report"})
				return v
			},
			Path: "/agents/{b_agent}/schedules/{schedule_id}", Body: map[string]any{"enabled": false}, Expect: scUnchanged, NoControl: true},
		Case{Op: "DELETE /agents/{agent_id}/schedules/{schedule_id}", Name: "B removes A's schedule", Setup: scOfA, Expect: scUnchanged},
		Case{Op: "DELETE /agents/{agent_id}/schedules/{schedule_id}", Name: "B removes A's schedule under its own agent",
			Setup: func(t *testing.T, c *Ctx) Vars {
				v := scOfA(t, c)
				v["b_agent"] = agCreateAs(t, c.AsB, map[string]any{"name": "B's report", "agent_template": "scheduled_report"})
				return v
			},
			Path: "/agents/{b_agent}/schedules/{schedule_id}", Expect: scUnchanged, NoControl: true},
	)
}

func init() {
	register(
		// The templates listing holds no tenant data: B sees what A sees.
		Case{Op: "GET /agents/templates", Name: "B lists the templates", Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
			a := c.AsA(t, http.MethodGet, "/agents/templates", nil)
			if string(a.Body) != string(r.Body) {
				t.Errorf("the templates listing differs between accounts:\n%s\n%s", r.Body, a.Body)
			}
		})},
	)
}

func init() {
	register(
		// A's use of a model does not show in B's usage.
		Case{Op: "GET /models/{model_id}/usage", Name: "B reads the usage of a model A used",
			Setup: func(t *testing.T, c *Ctx) Vars {
				if _, _, err := billing.NewCredits(c.DB).RecordUsage(t.Context(), billing.Usage{AccountID: c.A.AccountID, Purpose: "prompt_call", Model: "openai_gpt_4o", Credits: 1}); err != nil {
					t.Fatal(err)
				}
				return Vars{"model_id": "openai_gpt_4o"}
			},
			Expect: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				if !strings.Contains(string(r.Body), `"calls":0`) || !strings.Contains(string(r.Body), `"last_used_at":null`) {
					t.Errorf("B sees A's model usage: %s", r.Body)
				}
			}),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				if !strings.Contains(string(r.Body), `"calls":1`) {
					t.Errorf("A's own usage: %s", r.Body)
				}
			})},
	)
}
