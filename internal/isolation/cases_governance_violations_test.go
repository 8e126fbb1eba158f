package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/governance"
)

// Governance violations: A's recorded flags and blocks are A's; B's list
// is empty even when B filters by A's policy.
func init() {
	register(
		Case{Op: "GET /governance/violations", Name: "B does not list A's flags and blocks", Setup: violationOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
	)
}

// violationOfA gives A a policy and a block it recorded on an agent's run.
func violationOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	v := governanceOfA(t, c)
	if err := c.S.Governance.RecordViolation(context.Background(), governance.GovernanceViolation{AccountID: c.A.AccountID,
		AgentID: v["agent_id"], PolicyID: v["policy_id"], Stage: "input", Action: "block", Rule: "pii",
		Reason: `governance policy "A's policy": the run input contains an e-mail address`}); err != nil {
		t.Fatal(err)
	}
	return v
}
