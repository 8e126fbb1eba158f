package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/testserver"
)

// Governance: A's policies and assistant conversations are A's; B's plans
// and checks never see or touch them.
func init() {
	register(
		Case{Op: "POST /governance/ai-assistant", Name: "B's plan does not touch A's policies", Setup: governanceOfA,
			Body: map[string]any{"user_input": `Disable the policy "A's policy"`},
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				var body struct {
					ProposedActions []any `json:"proposed_actions"`
				}
				r.JSON(t, &body)
				if len(body.ProposedActions) != 0 {
					t.Errorf("B's plan names A's policy: %s", r.Body)
				}
			}), NoControl: true},
		Case{Op: "GET /governance/ai-assistant/conversations", Name: "B does not list A's conversations", Setup: governanceOfA,
			Expect: Status(http.StatusOK, EmptyList("")), Control: Status(http.StatusOK, NonEmptyList(""))},
		Case{Op: "POST /governance/ai-assistant/{conversation_id}/accept", Name: "B cannot accept A's plan", Setup: governanceOfA,
			Expect: NotFound(), Control: Status(http.StatusOK)},
		Case{Op: "POST /governance/ai-assistant/{conversation_id}/decline", Name: "B cannot decline A's plan", Setup: governanceOfA,
			Expect: NotFound(), Control: Status(http.StatusNoContent)},
		Case{Op: "GET /governance/policies", Name: "B does not list A's policies", Setup: governanceOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "POST /governance/policies", Name: "B cannot attach a policy to A's agent", Setup: governanceOfA,
			Body:   func(v Vars) any { return map[string]any{"name": "x", "agent_id": v["agent_id"], "policy_type": "pii"} },
			Expect: Status(http.StatusUnprocessableEntity), Control: Status(http.StatusCreated)},
		Case{Op: "GET /governance/policies/{policy_id}", Name: "B cannot read A's policy", Setup: governanceOfA, Expect: NotFound()},
		Case{Op: "PATCH /governance/policies/{policy_id}", Name: "B cannot change A's policy", Setup: governanceOfA,
			Body: map[string]any{"enabled": false}, Expect: NotFound()},
		Case{Op: "DELETE /governance/policies/{policy_id}", Name: "B cannot delete A's policy", Setup: governanceOfA,
			Expect: NotFound(), Control: Status(http.StatusNoContent)},
		Case{Op: "POST /governance/check", Name: "A's policies do not judge B's text", Setup: governanceOfA,
			Body: map[string]any{"stage": "input", "text": "mail me at a@example.com"},
			Expect: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				var v struct{ Action *string }
				r.JSON(t, &v)
				if v.Action != nil {
					t.Errorf("A's policy applied to B: %s", r.Body)
				}
			}),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				var v struct{ Action *string }
				r.JSON(t, &v)
				if v.Action == nil {
					t.Errorf("A's own policy did not apply: %s", r.Body)
				}
			})},
	)
}

// governanceOfA gives A an account-wide PII policy, an agent and a pending plan.
func governanceOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	ctx := context.Background()
	name, typ := "A's policy", "pii"
	p, err := c.S.Governance.CreatePolicy(ctx, c.A.AccountID, governance.PolicyInput{Name: &name, PolicyType: &typ})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c.S.Governance.Propose(ctx, c.A.AccountID, c.A.UserID, "Flag secrets in run input")
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"policy_id": p.ID, "conversation_id": plan.Conversation.ID, "agent_id": agentOfA(t, c)}
}
