package cli

import (
	"encoding/json"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() {
	addAPICommand(solutionsCommand)
	addAPICommand(assistantCommand)
	addAPICommand(searchCommand)
	addAPICommand(docsCommand)
}

// solutionsCommand is `agentry solutions …`: solutions, their links and
// history, and planning inside a solution.
func solutionsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "solutions", Short: "Solutions: groups of agents, knowledge bases and sources",
		Long: `A solution groups agents, knowledge bases and sources. Its assistants turn a goal
in plain language into a plan you accept or decline (agentry assistant plan
--solution ID). See docs/solutions.md.`}
	var page, limit int
	var sort, order, search, name, desc string
	list := a.evalgovCall("list", "List solutions", "", 0, func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
		p, err := c.ListSolutions(cmd.Context(), client.SolutionListOptions{Page: page, Limit: limit, Sort: sort, Order: order, Search: search})
		if err != nil {
			return nil, err
		}
		return p.Items, nil
	})
	list.Flags().IntVar(&page, "page", 1, "page number")
	list.Flags().IntVar(&limit, "limit", 20, "page size (up to 100)")
	list.Flags().StringVar(&sort, "sort", "", "created_at, updated_at or name")
	list.Flags().StringVar(&order, "order", "", "asc or desc")
	list.Flags().StringVar(&search, "search", "", "part of the name")
	create := a.evalgovCall("create", "Create a solution", `  agentry solutions create --name "Support" --description "Answers from the help centre"`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
			if name == "" {
				return nil, usageErrorf("--name is required")
			}
			return c.CreateSolution(cmd.Context(), name, desc)
		})
	update := a.evalgovCall("update SOLUTION_ID", "Change the name or description", "", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.UpdateSolution(cmd.Context(), args[0], client.UpdateSolutionRequest{Name: changedString(cmd, "name", name),
				Description: changedString(cmd, "description", desc)})
		})
	for _, c := range []*cobra.Command{create, update} {
		c.Flags().StringVar(&name, "name", "", "name")
		c.Flags().StringVar(&desc, "description", "", "description")
	}
	link := func(verb, short string, unlink bool) *cobra.Command {
		c := a.evalgovCall(verb+" SOLUTION_ID KIND ID...", short,
			"  agentry solutions "+verb+" $S agents $AGENT\n  agentry solutions "+verb+" $S knowledge-bases $KB1 $KB2\n  agentry solutions "+verb+" $S source-connections $SRC", 0,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				if len(args) < 3 {
					return nil, usageErrorf("give SOLUTION_ID, KIND (agents, knowledge-bases, source-connections) and at least one ID")
				}
				switch args[1] {
				case client.SolutionAgents, client.SolutionKnowledgeBases, client.SolutionSourceConnections:
				default:
					return nil, usageErrorf("KIND is agents, knowledge-bases or source-connections, not %q", args[1])
				}
				if unlink {
					return c.UnlinkSolutionResources(cmd.Context(), args[0], args[1], args[2:])
				}
				return c.LinkSolutionResources(cmd.Context(), args[0], args[1], args[2:])
			})
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := cobra.MinimumNArgs(3)(cmd, args); err != nil {
				return &usageError{err}
			}
			return nil
		}
		return c
	}
	var accepted bool
	mark := a.evalgovCall("mark SOLUTION_ID CONVERSATION_ID", "Record whether a turn was accepted (executes nothing)", "", 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return nil, c.MarkSolutionConversation(cmd.Context(), args[0], args[1], accepted)
		})
	mark.Flags().BoolVar(&accepted, "accepted", true, "accepted (true) or declined (false)")
	var response string
	addTurn := a.evalgovCall("add-turn SOLUTION_ID TEXT", "Record a conversation turn by hand", "", 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.AddSolutionConversation(cmd.Context(), args[0], client.AddConversationTurnRequest{UserInput: args[1],
				AIResponse: changedString(cmd, "response", response)})
		})
	addTurn.Flags().StringVar(&response, "response", "", "the assistant's answer")
	cmd.AddCommand(list, create,
		a.evalgovCall("get SOLUTION_ID", "Show a solution and its linked resources", "", 1, func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.GetSolution(cmd.Context(), args[0])
		}),
		update,
		a.evalgovCall("delete SOLUTION_ID", "Delete a solution (its resources stay)", "", 1, func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return nil, c.DeleteSolution(cmd.Context(), args[0])
		}),
		link("link", "Link resources (already linked ones are ignored)", false),
		link("unlink", "Unlink resources (ones not linked are ignored)", true),
		a.evalgovCall("conversations SOLUTION_ID", "List the assistant history, oldest first", "", 1, func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.SolutionConversations(cmd.Context(), args[0])
		}),
		addTurn, mark,
	)
	return cmd
}

// assistantCommand is `agentry assistant …`: the planning assistants, the
// agent assistant and feedback.
func assistantCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "assistant", Short: "AI assistants: plan solutions, knowledge bases and sources; write agent workflows",
		Long: `The planning assistants turn a goal in plain language into a plan of actions
(create, update or delete sources, knowledge bases and agents) that you accept
or decline. Without a configured assistant model the built-in planner answers,
offline and free. See docs/solutions.md.`}
	var solution, kind, solName, solDesc string
	var confirm bool
	plan := a.evalgovCall("plan TEXT", "Ask for a plan", `  agentry assistant plan "Watch https://example.com/feed.xml and e-mail me a weekly summary"
  agentry assistant plan --kind source --solution $S "Index https://docs.example.com daily"`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			switch kind {
			case client.AssistantSolution, client.AssistantKnowledgeBase, client.AssistantSource:
			default:
				return nil, usageErrorf("--kind is solution, knowledge-base or source, not %q", kind)
			}
			return c.Plan(cmd.Context(), solution, kind, client.PlanRequest{UserInput: args[0]})
		})
	plan.Flags().StringVar(&kind, "kind", client.AssistantSolution, "solution, knowledge-base or source")
	accept := a.evalgovCall("accept CONVERSATION_ID", "Execute a plan, action by action", "  agentry assistant accept $C --solution-name \"Feed digest\"", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.AcceptPlan(cmd.Context(), solution, args[0], client.AcceptPlanRequest{ConfirmDeletions: confirm,
				SolutionName: changedString(cmd, "solution-name", solName), SolutionDescription: changedString(cmd, "solution-description", solDesc)})
		})
	accept.Flags().BoolVar(&confirm, "confirm-deletions", false, "needed when the plan deletes anything")
	accept.Flags().StringVar(&solName, "solution-name", "", "standalone plans: make a solution of this name and link what was created")
	accept.Flags().StringVar(&solDesc, "solution-description", "", "standalone plans: the new solution's description")
	decline := a.evalgovCall("decline CONVERSATION_ID", "Decline a plan (nothing changes)", "", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return nil, c.DeclinePlan(cmd.Context(), solution, args[0])
		})
	for _, c := range []*cobra.Command{plan, accept, decline} {
		c.Flags().StringVar(&solution, "solution", "", "the solution's id (empty: a standalone plan)")
	}

	var trigger, mode, stepID, current string
	steps := a.evalgovCall("steps AGENT_ID TEXT", "Write a complete workflow for an agent (validated, not saved)",
		`  agentry assistant steps $A "Answer questions from the handbook knowledge base"`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.GenerateAgentSteps(cmd.Context(), args[0], client.GenerateStepsRequest{UserInput: args[1], Mode: mode,
				TriggerType: changedString(cmd, "trigger", trigger)})
		})
	steps.Flags().StringVar(&mode, "mode", "generate_full", "generate_full or modify_workflow")
	steps.Flags().StringVar(&trigger, "trigger", "", "the trigger type to write for (default: the agent's)")
	stepConfig := a.evalgovCall("step-config AGENT_ID STEP_TYPE TEXT", "Propose one step's configuration", `  agentry assistant step-config $A send_email 'Send it to team@example.com with the subject "Weekly"'`, 3,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			var cur map[string]any
			if current != "" {
				if err := json.Unmarshal([]byte(current), &cur); err != nil {
					return nil, usageErrorf("--current must be a JSON object: %v", err)
				}
			}
			return c.GenerateStepConfig(cmd.Context(), args[0], client.StepConfigRequest{StepType: args[1], UserInput: args[2],
				CurrentConfig: cur, StepID: changedString(cmd, "step", stepID)})
		})
	stepConfig.Flags().StringVar(&current, "current", "", "the step's current configuration (JSON)")
	var limit, offset int
	history := a.evalgovCall("history AGENT_ID STEP_TYPE", "List the agent assistant's turns for a step type (agent_workflow for steps)", "", 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.AgentAssistantHistory(cmd.Context(), args[0], args[1], stepID, limit, offset)
		})
	history.Flags().IntVar(&limit, "limit", 10, "how many (1–50)")
	history.Flags().IntVar(&offset, "offset", 0, "recent turns to skip")
	for _, c := range []*cobra.Command{stepConfig, history} {
		c.Flags().StringVar(&stepID, "step", "", "the step's id")
	}
	var accepted bool
	mark := a.evalgovCall("mark AGENT_ID CONVERSATION_ID", "Record whether a suggestion was accepted (applies nothing)", "", 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			if err := c.MarkAgentSuggestion(cmd.Context(), args[0], args[1], accepted); err != nil {
				return nil, err
			}
			return map[string]bool{"ok": true}, nil
		})
	mark.Flags().BoolVar(&accepted, "accepted", true, "accepted (true) or declined (false)")
	var feature, comment, conversation string
	feedback := a.evalgovCall("feedback up|down", "Rate an assistant's answer", `  agentry assistant feedback down --feature solution --comment "It proposed the wrong feed"`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			rating := map[string]string{"up": "thumbs_up", "down": "thumbs_down"}[strings.ToLower(args[0])]
			if rating == "" {
				return nil, usageErrorf("rate up or down, not %q", args[0])
			}
			return c.SendAssistantFeedback(cmd.Context(), client.AssistantFeedback{Feature: feature, Rating: rating,
				Comment: changedString(cmd, "comment", comment), ConversationID: changedString(cmd, "conversation", conversation)})
		})
	feedback.Flags().StringVar(&feature, "feature", "solution", "which assistant: solution, knowledge_base, source, agent…")
	feedback.Flags().StringVar(&comment, "comment", "", "what was wrong or right")
	feedback.Flags().StringVar(&conversation, "conversation", "", "the conversation id")
	cmd.AddCommand(plan, accept, decline, steps, stepConfig, history, mark, feedback)
	return cmd
}

// searchCommand is `agentry search QUERY`.
func searchCommand(a *App) *cobra.Command {
	var entity string
	var limit int
	cmd := a.evalgovCall("search QUERY", "Find the account's resources by name, description or id",
		"  agentry search harbour\n  agentry search --type agent digest", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.Search(cmd.Context(), args[0], entity, limit)
		})
	cmd.Flags().StringVar(&entity, "type", "", "only this entity type (agent, knowledge_base, source_connection, solution, …)")
	cmd.Flags().IntVar(&limit, "limit", 10, "how many (1–50)")
	return cmd
}

// docsCommand is `agentry docs search QUERY`.
func docsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "docs", Short: "Search Agentry's documentation"}
	var mode string
	var limit int
	s := a.evalgovCall("search QUERY", "Search the documentation pages", "  agentry docs search schedules\n  agentry docs search --mode semantic \"run an agent every morning\"", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.SearchDocs(cmd.Context(), args[0], mode, limit)
		})
	s.Flags().StringVar(&mode, "mode", "keyword", "keyword (titles and summaries) or semantic (page text)")
	s.Flags().IntVar(&limit, "limit", 8, "how many (1–20)")
	cmd.AddCommand(s)
	return cmd
}
