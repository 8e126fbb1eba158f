package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
)

// Workflow versions (extension): B can neither list, read, compare nor
// restore the versions of A's agent.

// vrOfA is a Setup with an agent of A saved twice: two versions.
func vrOfA(t *testing.T, c *Ctx) Vars {
	id := agCreateAs(t, c.AsA, map[string]any{"name": "A's versioned", "agent_template": "simple_qa"})
	var d struct {
		ChangeID string `json:"change_id"`
	}
	c.AsA(t, http.MethodGet, "/agents/"+id+"/definition", nil).JSON(t, &d)
	first := d.ChangeID
	r := c.AsA(t, http.MethodPut, "/agents/"+id+"/definition", map[string]any{"expected_change_id": first,
		"definition": map[string]any{"child_steps": []any{map[string]any{"id": "secret_of_a", "step_type": "text", "text": "A only"}}}})
	if r.Status != http.StatusOK {
		t.Fatalf("save: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &d)
	return Vars{"agent_id": id, "first": first, "current": d.ChangeID}
}

// vrUnchanged checks, after B's 404, that A's workflow is still its second version.
func vrUnchanged(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	var d struct {
		ChangeID string `json:"change_id"`
	}
	c.AsA(t, http.MethodGet, "/agents/"+c.Vars["agent_id"]+"/definition", nil).JSON(t, &d)
	if d.ChangeID != c.Vars["current"] {
		t.Errorf("B's restore changed A's workflow to %s", d.ChangeID)
	}
}

func init() {
	register(
		Case{Op: "GET /agents/{agent_id}/versions", Name: "B lists A's agent's versions", Setup: vrOfA, Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/versions/{change_id}", Name: "B reads A's old version", Setup: vrOfA,
			Path: "/agents/{agent_id}/versions/{first}", Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/versions/{change_id}/diff", Name: "B compares A's versions", Setup: vrOfA,
			Path: "/agents/{agent_id}/versions/{current}/diff?against={first}", Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/versions/{change_id}/restore", Name: "B restores A's old version", Setup: vrOfA,
			Path: "/agents/{agent_id}/versions/{first}/restore", Body: func(v Vars) any { return map[string]any{"expected_change_id": v["current"]} },
			Expect: vrUnchanged, NoControl: true},
		// Reruns (extension): B cannot rerun A's run; A can (the control).
		Case{Op: "POST /agents/runs/{run_id}/rerun", Name: "B reruns A's run", Setup: runOfA,
			Body: map[string]any{"from_step": "t"}, Expect: rrNone},
	)
}

// rrNone checks, after B's 404, that A's run has no rerun.
func rrNone(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	if ids, err := runs.NewRepo(c.DB, nil).Reruns(context.Background(), c.A.AccountID, c.Vars["run_id"], 10); err != nil || len(ids) != 0 {
		t.Errorf("B's rerun attempt made reruns %v (%v)", ids, err)
	}
}
