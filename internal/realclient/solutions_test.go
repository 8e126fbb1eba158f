package realclient_test

import (
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestSolutionsOnRealServer runs the solutions, assistant and search
// operations through the client.
func TestSolutionsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		sol, err := c.CreateSolution(ctx, "Handbook", "HR answers")
		if err != nil {
			t.Fatal(err)
		}
		plan, err := c.Plan(ctx, sol.ID, client.AssistantSolution, client.PlanRequest{UserInput: "Answer questions from the handbook I upload"})
		if err != nil || !plan.Success || len(plan.ProposedActions) != 3 {
			t.Fatalf("plan: %+v %v", plan, err)
		}
		res, err := c.AcceptPlan(ctx, sol.ID, plan.ConversationID, client.AcceptPlanRequest{})
		if err != nil || !res.Success {
			t.Fatalf("accept: %+v %v", res, err)
		}
		got, err := c.GetSolution(ctx, sol.ID)
		if err != nil || len(got.Agents) != 1 || len(got.KnowledgeBases) != 1 || len(got.SourceConnections) != 1 {
			t.Fatalf("solution: %+v %v", got, err)
		}
		agentID := got.Agents[0].ID
		if _, err := c.UnlinkSolutionResources(ctx, sol.ID, client.SolutionAgents, []string{agentID}); err != nil {
			t.Fatal(err)
		}
		if got, err = c.LinkSolutionResources(ctx, sol.ID, client.SolutionAgents, []string{agentID}); err != nil || len(got.Agents) != 1 {
			t.Fatalf("link: %+v %v", got, err)
		}
		name := "HR handbook"
		if got, err = c.UpdateSolution(ctx, sol.ID, client.UpdateSolutionRequest{Name: &name}); err != nil || got.Name != name {
			t.Fatalf("update: %+v %v", got, err)
		}
		page, err := c.ListSolutions(ctx, client.SolutionListOptions{Search: "hr"})
		if err != nil || len(page.Items) != 1 || page.Items[0].AgentCount != 1 {
			t.Fatalf("list: %+v %v", page, err)
		}
		if _, err := c.AddSolutionConversation(ctx, sol.ID, client.AddConversationTurnRequest{UserInput: "note"}); err != nil {
			t.Fatal(err)
		}
		turns, err := c.SolutionConversations(ctx, sol.ID)
		if err != nil || len(turns) != 2 {
			t.Fatalf("turns: %+v %v", turns, err)
		}
		if err := c.MarkSolutionConversation(ctx, sol.ID, turns[1].ID, true); err != nil {
			t.Fatal(err)
		}
		standalone, err := c.Plan(ctx, "", client.AssistantSource, client.PlanRequest{UserInput: "A source for files I upload"})
		if err != nil || !standalone.Success {
			t.Fatalf("standalone: %+v %v", standalone, err)
		}
		if err := c.DeclinePlan(ctx, "", standalone.ConversationID); err != nil {
			t.Fatal(err)
		}
		steps, err := c.GenerateAgentSteps(ctx, agentID, client.GenerateStepsRequest{UserInput: "Answer from the handbook knowledge base"})
		if err != nil || !steps.Success {
			t.Fatalf("steps: %+v %v", steps, err)
		}
		cfg, err := c.GenerateStepConfig(ctx, agentID, client.StepConfigRequest{StepType: "prompt_call", UserInput: "Answer politely"})
		if err != nil || !cfg.Success {
			t.Fatalf("config: %+v %v", cfg, err)
		}
		hist, err := c.AgentAssistantHistory(ctx, agentID, "prompt_call", "", 10, 0)
		if err != nil || hist.Total != 1 {
			t.Fatalf("history: %+v %v", hist, err)
		}
		if err := c.MarkAgentSuggestion(ctx, agentID, cfg.ConversationID, true); err != nil {
			t.Fatal(err)
		}
		fb, err := c.SendAssistantFeedback(ctx, client.AssistantFeedback{Feature: "solution", Rating: "thumbs_up"})
		if err != nil || fb.Flagged {
			t.Fatalf("feedback: %+v %v", fb, err)
		}
		found, err := c.Search(ctx, "hr hand", "", 0)
		if err != nil || len(found) != 1 || found[0].EntityType != "solution" {
			t.Fatalf("search: %+v %v", found, err)
		}
		docs, err := c.SearchDocs(ctx, "solutions", "keyword", 3)
		if err != nil || len(docs) == 0 {
			t.Fatalf("docs: %+v %v", docs, err)
		}
		if err := c.DeleteSolution(ctx, sol.ID); err != nil {
			t.Fatal(err)
		}
	})
}
