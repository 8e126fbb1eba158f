package cli

import (
	"encoding/json"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(evalsCommand) }

// call is a command that runs f with the client and prints what it returns.
func (a *App) evalgovCall(use, short, example string, nargs int, f func(cmd *cobra.Command, c *client.Client, args []string) (any, error)) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Example: example, Args: exactArgs(nargs),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			v, err := f(cmd, c, args)
			if err != nil || v == nil {
				return err
			}
			return a.print(cmd, v, nil)
		}}
}

// jsonFlag reads a flag holding a JSON object ("" for none).
func jsonObjectFlag(name, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return nil, usageErrorf("--%s must be a JSON object: %v", name, err)
	}
	return json.RawMessage(v), nil
}

func changedString(cmd *cobra.Command, name, v string) *string {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func changedFloat(cmd *cobra.Command, name string, v float64) *float64 {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

// evalsCommand is `agentry evals …`: evaluation criteria and results.
func evalsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "evals", Short: "Evaluation criteria of agent steps, their results and drafts",
		Long: `Criteria judge an agent step's output: deterministic checks (expectation_config)
and an LLM judge with a rubric (evaluation prompt). See docs/evaluations.md.`}

	var step, prompt, expect, tier, desc string
	var threshold float64
	var enabled bool
	critFlags := func(c *cobra.Command) *cobra.Command {
		c.Flags().StringVar(&step, "step", "", "the step id the criterion judges")
		c.Flags().StringVar(&prompt, "prompt", "", "evaluation prompt: the rubric the judge scores by")
		c.Flags().StringVar(&expect, "expect", "", `expectation_config as JSON, e.g. '{"contains": "total"}'`)
		c.Flags().StringVar(&tier, "tier", "", "judge tier: fast, balanced or thorough")
		c.Flags().StringVar(&desc, "description", "", "what the criterion checks")
		c.Flags().Float64Var(&threshold, "threshold", 0.5, "pass threshold, 0 to 1")
		c.Flags().BoolVar(&enabled, "enabled", true, "whether the engine judges with it")
		return c
	}
	input := func(cmd *cobra.Command) (client.EvaluationCriteriaInput, error) {
		exp, err := jsonObjectFlag("expect", expect)
		in := client.EvaluationCriteriaInput{StepID: step, Description: changedString(cmd, "description", desc),
			EvaluationPrompt: changedString(cmd, "prompt", prompt), ExpectationConfig: exp, PassThreshold: changedFloat(cmd, "threshold", threshold),
			EvaluationTier: changedString(cmd, "tier", tier)}
		if cmd.Flags().Changed("enabled") {
			in.Enabled = &enabled
		}
		return in, err
	}
	var page, limit int
	pageFlags := func(c *cobra.Command) *cobra.Command {
		c.Flags().IntVar(&page, "page", 1, "page number")
		c.Flags().IntVar(&limit, "limit", 20, "page size (up to 100)")
		return c
	}
	var f client.EvaluationResultFilter
	filterFlags := func(c *cobra.Command) *cobra.Command {
		c.Flags().StringVar(&f.Status, "status", "", "pending, passed, failed, skipped or error")
		c.Flags().StringVar(&f.Step, "step", "", "only this step id")
		c.Flags().BoolVar(&f.FlaggedOnly, "flagged", false, "only flagged results")
		c.Flags().StringVar(&f.TimeFrom, "from", "", "evaluated at or after (RFC 3339 or YYYY-MM-DD)")
		c.Flags().StringVar(&f.TimeTo, "to", "", "evaluated at or before")
		return pageFlags(c)
	}
	filter := func() client.EvaluationResultFilter { f.Page, f.Limit = page, limit; return f }

	criteria := &cobra.Command{Use: "criteria", Short: "Manage evaluation criteria"}
	criteria.AddCommand(
		pageFlags(a.evalgovCall("list AGENT_ID", "List an agent's criteria", "  agentry evals criteria list $AGENT", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				p, err := c.ListEvaluationCriteria(cmd.Context(), args[0], page, limit)
				if err != nil {
					return nil, err
				}
				return p.Items, nil
			})),
		critFlags(a.evalgovCall("create AGENT_ID", "Add a criterion to an agent step",
			`  agentry evals criteria create $AGENT --step extract --expect '{"json_schema": {"type": "object", "required": ["email"]}}'`, 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				if step == "" {
					return nil, usageErrorf("--step is required")
				}
				in, err := input(cmd)
				if err != nil {
					return nil, err
				}
				return c.CreateEvaluationCriteria(cmd.Context(), args[0], in)
			})),
		a.evalgovCall("get CRITERIA_ID", "Show a criterion with its result counts", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				return c.GetEvaluationCriteria(cmd.Context(), args[0])
			}),
		critFlags(a.evalgovCall("update CRITERIA_ID", "Change the fields given as flags", "  agentry evals criteria update $CRIT --enabled=false", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				in, err := input(cmd)
				if err != nil {
					return nil, err
				}
				if !cmd.Flags().Changed("step") {
					in.StepID = ""
				}
				return c.UpdateEvaluationCriteria(cmd.Context(), args[0], in)
			})),
		a.evalgovCall("delete CRITERIA_ID", "Delete a criterion and its results", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				return nil, c.DeleteEvaluationCriteria(cmd.Context(), args[0])
			}),
	)

	var runID, stepRun, status string
	var score float64
	var flagged bool
	push := a.evalgovCall("push CRITERIA_ID", "Record a result from an external harness",
		"  agentry evals results push $CRIT --run $RUN --status passed --score 0.9", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			in := client.EvaluationResultInput{AgentRunID: runID, Status: status, Score: changedFloat(cmd, "score", score), Flagged: flagged,
				AgentStepRunID: changedString(cmd, "step-run", stepRun)}
			return c.CreateEvaluationResult(cmd.Context(), args[0], in)
		})
	push.Flags().StringVar(&runID, "run", "", "the agent run judged")
	push.Flags().StringVar(&stepRun, "step-run", "", "the step run judged")
	push.Flags().StringVar(&status, "status", "passed", "pending, passed, failed, skipped or error")
	push.Flags().Float64Var(&score, "score", 0, "score from 0 to 1")
	push.Flags().BoolVar(&flagged, "flagged", false, "flag for human review")
	results := &cobra.Command{Use: "results", Short: "Evaluation results"}
	results.AddCommand(
		filterFlags(a.evalgovCall("list CRITERIA_ID", "List a criterion's results", "  agentry evals results list $CRIT --status failed", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				p, err := c.ListEvaluationResults(cmd.Context(), args[0], filter())
				if err != nil {
					return nil, err
				}
				return p.Items, nil
			})),
		push,
		filterFlags(a.evalgovCall("agent AGENT_ID", "List results across an agent's criteria", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				p, err := c.ListAgentEvaluationResults(cmd.Context(), args[0], filter())
				if err != nil {
					return nil, err
				}
				return p.Items, nil
			})),
		pageFlags(a.evalgovCall("run AGENT_ID RUN_ID", "List the results of one run", "", 2,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				p, err := c.ListRunEvaluationResults(cmd.Context(), args[0], args[1], page, limit)
				if err != nil {
					return nil, err
				}
				return p.Items, nil
			})),
	)

	var dailyDays int
	daily := a.evalgovCall("daily AGENT_ID", "An agent's results per UTC day, with the pass rate", "  agentry evals results daily $AGENT --days 14", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.GetEvaluationDaily(cmd.Context(), args[0], dailyDays)
		})
	daily.Flags().IntVar(&dailyDays, "days", 30, "days back, today included (at most 365)")
	results.AddCommand(daily)

	var agentID string
	var days int
	nonManual := a.evalgovCall("non-manual-summary", "Pass and failure rates of eval_and_retry and sample_and_flag", "", 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
			return c.GetNonManualEvaluationSummary(cmd.Context(), agentID, days)
		})
	nonManual.Flags().StringVar(&agentID, "agent", "", "scope to one agent (Service-Version 2026-07-27)")
	nonManual.Flags().IntVar(&days, "days", 30, "days back")

	var output, draftStepRun, agentInput string
	draft := a.evalgovCall("draft AGENT_ID", "Judge a draft criterion without recording it or charging credits",
		`  agentry evals draft $AGENT --output '{"total": 12}' --expect '{"numeric_range": {"min": 0, "max": 100, "path": "$.total"}}'`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			exp, err := jsonObjectFlag("expect", expect)
			if err != nil {
				return nil, err
			}
			d := client.DraftEvaluation{StepOutput: changedString(cmd, "output", output), AgentStepRunID: changedString(cmd, "step-run", draftStepRun),
				AgentInput: changedString(cmd, "input", agentInput), EvaluationPrompt: changedString(cmd, "prompt", prompt), ExpectationConfig: exp,
				PassThreshold: changedFloat(cmd, "threshold", threshold), EvaluationTier: changedString(cmd, "tier", tier)}
			return c.TestDraftEvaluation(cmd.Context(), args[0], d)
		})
	draft.Flags().StringVar(&output, "output", "", "the step output to judge")
	draft.Flags().StringVar(&draftStepRun, "step-run", "", "judge this completed step run's output instead")
	draft.Flags().StringVar(&agentInput, "input", "", "the run input, for context")
	draft.Flags().StringVar(&prompt, "prompt", "", "evaluation prompt")
	draft.Flags().StringVar(&expect, "expect", "", "expectation_config as JSON")
	draft.Flags().StringVar(&tier, "tier", "", "judge tier")
	draft.Flags().Float64Var(&threshold, "threshold", 0.5, "pass threshold")

	var startedAfter string
	compat := pageFlags(a.evalgovCall("compatible-runs CRITERIA_ID", "Runs with a completed attempt of the criterion's step", "", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			p, err := c.ListCompatibleRuns(cmd.Context(), args[0], startedAfter, page, limit)
			if err != nil {
				return nil, err
			}
			return p.Items, nil
		}))
	compat.Flags().StringVar(&startedAfter, "started-after", "", "RFC 3339 time")

	cmd.AddCommand(criteria, results, nonManual, draft, compat,
		a.evalgovCall("summary CRITERIA_ID", "Counts and average score of a criterion's results", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				return c.GetEvaluationSummary(cmd.Context(), args[0])
			}),
		filterFlags(a.evalgovCall("runs AGENT_ID", "An agent's results grouped by run", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				p, err := c.ListEvaluationRuns(cmd.Context(), args[0], filter())
				if err != nil {
					return nil, err
				}
				return p.Items, nil
			})),
	)
	return cmd
}
