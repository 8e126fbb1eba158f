package cli_test

import (
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// `agentry solutions|assistant|search|docs …` against the real server.
func TestSolutionsAndAssistantCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		var plan client.Plan
		run(t, append(g, "assistant", "plan", "Answer questions from the handbook I upload")...).ok(t, &plan)
		if !plan.Success || len(plan.ProposedActions) != 3 {
			t.Fatalf("plan: %+v", plan)
		}
		var res client.PlanResult
		run(t, append(g, "assistant", "accept", plan.ConversationID, "--solution-name", "Handbook")...).ok(t, &res)
		if !res.Success || res.SolutionID == nil {
			t.Fatalf("accept: %+v", res)
		}
		var sol client.Solution
		run(t, append(g, "solutions", "get", *res.SolutionID)...).ok(t, &sol)
		if len(sol.Agents) != 1 || len(sol.KnowledgeBases) != 1 || len(sol.SourceConnections) != 1 {
			t.Fatalf("solution: %+v", sol)
		}
		agent := sol.Agents[0].ID
		run(t, append(g, "solutions", "unlink", sol.ID, "agents", agent)...).ok(t, &sol)
		if len(sol.Agents) != 0 {
			t.Fatalf("unlink: %+v", sol)
		}
		run(t, append(g, "solutions", "link", sol.ID, "agents", agent)...).ok(t, &sol)
		run(t, append(g, "solutions", "link", sol.ID, "robots", agent)...).exits(t, 2, "KIND")
		var list []client.SolutionSummary
		run(t, append(g, "solutions", "list", "--search", "hand")...).ok(t, &list)
		if len(list) != 1 || list[0].AgentCount != 1 {
			t.Fatalf("list: %+v", list)
		}
		var steps client.GeneratedSteps
		run(t, append(g, "assistant", "steps", agent, "Answer from the handbook knowledge base")...).ok(t, &steps)
		if !steps.Success || len(steps.Steps) == 0 {
			t.Fatalf("steps: %+v", steps)
		}
		var hist client.AssistantHistory
		run(t, append(g, "assistant", "history", agent, "agent_workflow")...).ok(t, &hist)
		if hist.Total != 1 {
			t.Fatalf("history: %+v", hist)
		}
		var fb client.FeedbackResult
		run(t, append(g, "assistant", "feedback", "down", "--comment", "It leaked a password")...).ok(t, &fb)
		if !fb.Flagged {
			t.Errorf("feedback: %+v", fb)
		}
		var found []client.SearchResult
		run(t, append(g, "search", "handbook", "--type", "solution")...).ok(t, &found)
		if len(found) != 1 || found[0].ID != sol.ID {
			t.Fatalf("search: %+v", found)
		}
		var docs []client.DocsResult
		run(t, append(g, "docs", "search", "solutions")...).ok(t, &docs)
		if len(docs) == 0 || docs[0].DocSlug != "solutions" {
			t.Fatalf("docs: %+v", docs)
		}
		run(t, append(g, "solutions", "delete", sol.ID)...).ok(t, nil)
	})
}
