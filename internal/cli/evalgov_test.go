package cli_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// `agentry evals …` and `agentry governance …` against the real server.
func TestEvalsAndGovernanceCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "cli agent", `{"child_steps":[{"id":"t","step_type":"text","text":"Hello {{input}}"}]}`, "dynamic_input")

		var crit client.EvaluationCriteria
		run(t, append(g, "evals", "criteria", "create", agent, "--step", "t", "--expect", `{"contains": "Hello"}`, "--threshold", "0.8")...).ok(t, &crit)
		if crit.PassThreshold != 0.8 || *crit.StepID != "t" {
			t.Fatalf("created: %+v", crit)
		}
		var list []client.EvaluationCriteria
		run(t, append(g, "evals", "criteria", "list", agent)...).ok(t, &list)
		if len(list) != 1 {
			t.Fatalf("list: %+v", list)
		}
		run(t, append(g, "evals", "criteria", "update", crit.ID, "--enabled=false")...).ok(t, &crit)
		if crit.Enabled {
			t.Error("update did not disable")
		}
		var verdict client.DraftVerdict
		run(t, append(g, "evals", "draft", agent, "--output", `{"total": 250}`, "--expect", `{"numeric_range": {"max": 100, "path": "$.total"}}`)...).ok(t, &verdict)
		if verdict.Passed || !strings.Contains(*verdict.Explanation, "outside") {
			t.Errorf("draft: %+v", verdict)
		}
		var sum client.EvaluationSummary
		run(t, append(g, "evals", "summary", crit.ID)...).ok(t, &sum)
		var nm client.NonManualEvaluationSummary
		run(t, append(g, "evals", "non-manual-summary", "--days", "7")...).ok(t, &nm)
		if len(nm.ByMode) != 2 {
			t.Errorf("non-manual: %+v", nm)
		}
		var daily client.EvaluationDaily
		run(t, append(g, "evals", "results", "daily", agent, "--days", "14")...).ok(t, &daily)
		if daily.AgentID != agent || daily.Days == nil {
			t.Errorf("daily: %+v", daily)
		}
		run(t, append(g, "evals", "results", "daily", agent, "--days", "400")...).exits(t, 5, "query.days")
		run(t, append(g, "evals", "criteria", "create", agent, "--step", "t", "--expect", "not json")...).exits(t, 2, "--expect")
		run(t, append(g, "evals", "criteria", "delete", crit.ID)...).ok(t, nil)

		var p client.GovernancePolicy
		run(t, append(g, "governance", "policies", "create", "--name", "No PII", "--config", `{"action": "block", "rules": [{"type": "pii"}]}`)...).ok(t, &p)
		var v client.GovernanceVerdict
		run(t, append(g, "governance", "check", "--stage", "output", "card 4111 1111 1111 1111")...).ok(t, &v)
		if v.Action == nil || *v.Action != "block" || *v.Rule != "pii:card" {
			t.Errorf("check: %+v", v)
		}
		var plan client.GovernancePlan
		run(t, append(g, "governance", "ask", `Flag the terms "Project Falcon"`)...).ok(t, &plan)
		if !plan.Success || len(plan.ProposedActions) != 1 {
			t.Fatalf("plan: %+v", plan)
		}
		var acc client.GovernanceAcceptResult
		run(t, append(g, "governance", "accept", plan.ConversationID)...).ok(t, &acc)
		if !acc.Success {
			t.Errorf("accept: %+v", acc)
		}
		var policies []client.GovernancePolicy
		run(t, append(g, "governance", "policies", "list")...).ok(t, &policies)
		if len(policies) != 2 {
			t.Errorf("policies: %+v", policies)
		}
		var convs []client.GovernanceConversation
		run(t, append(g, "governance", "conversations")...).ok(t, &convs)
		if len(convs) != 1 || convs[0].Accepted == nil || !*convs[0].Accepted {
			t.Errorf("conversations: %+v", convs)
		}
		run(t, append(g, "governance", "policies", "delete", p.ID)...).ok(t, nil)
	})
}
