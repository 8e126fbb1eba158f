package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(playgroundCommand) }

// playgroundCommand is `agentry playground …`: model experiments.
func playgroundCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "playground",
		Short: "Compare models on one prompt",
		Long: `The model playground runs one prompt against up to ten models at once and
shows each model's answer, latency, tokens and credits, optionally scored by
an evaluator model. Every call is billed to your account. See
docs/playground.md.`,
	}
	cmd.AddCommand(a.playgroundCreate(), a.playgroundList(), a.playgroundGet(), a.playgroundWait(), a.playgroundCancel(), a.playgroundDelete())
	return cmd
}

// readArg returns s, or the contents of the file s names after @ ("@-"
// for stdin), so long prompts and templates need no shell quoting.
func pgReadArg(cmd *cobra.Command, s string) (string, error) {
	if !strings.HasPrefix(s, "@") {
		return s, nil
	}
	var (
		b   []byte
		err error
	)
	if s == "@-" {
		b, err = io.ReadAll(cmd.InOrStdin())
	} else {
		b, err = os.ReadFile(s[1:])
	}
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return string(b), nil
}

// experimentFailed is an experiment that failed, after it was shown.
func experimentFailed(e *client.Experiment) error {
	if e.Status != client.ExperimentFailed {
		return nil
	}
	return fmt.Errorf("experiment %s failed: %s", e.ID, orNone(mdDeref(e.ErrorMessage)))
}

func (a *App) playgroundCreate() *cobra.Command {
	var (
		req               client.PlaygroundCreateRequest
		evaluate, wait    bool
		interval, timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "create --prompt TEXT --model ID [--model ID…]",
		Short: "Run a prompt against several models (and, with --wait, show the results)",
		Long: `Create an experiment: the prompt is sent to every --model at once. With
--evaluate an evaluator model (--evaluator, else the server's default) scores
each answer between 0 and 1. --prompt, --system-prompt, --json-template and
--step-output take @FILE (or @- for stdin) to read the text from a file.
With --wait, poll until it finishes and show the results; a failed
experiment exits with status 1, a wait that times out with 11.`,
		Example: `  agentry playground create --prompt "Explain DNS in one sentence." --model openai_gpt_4_1 --model anthropic_claude_sonnet_4_6 --wait -o table
  agentry playground create --prompt @question.txt --model agentry_offline --evaluate --complexity complex --wait
  agentry playground create --prompt "Hi" --model openai_gpt_4o --json-template @payload.json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range []*string{&req.Prompt, &req.SystemPrompt, &req.JSONTemplate, &req.SelectedStepOutput} {
				v, err := pgReadArg(cmd, *p)
				if err != nil {
					return err
				}
				*p = v
			}
			if req.Prompt == "" || len(req.ModelIDs) == 0 {
				return usageErrorf("give --prompt and at least one --model")
			}
			if evaluate {
				req.EvaluationMode = "prompt"
			}
			req.IncludeStepOutputInEvaluation = req.SelectedStepOutput != ""
			c, err := a.Client()
			if err != nil {
				return err
			}
			created, err := c.CreateExperiment(cmd.Context(), req)
			if err != nil {
				return err
			}
			if !wait {
				return a.print(cmd, created, func(w io.Writer) error {
					return writeFields(w, [][2]string{{"Experiment", created.ExperimentID}, {"Status", created.Status}})
				})
			}
			e, err := c.WaitExperiment(cmd.Context(), created.ExperimentID, interval, timeout)
			if err != nil {
				return err
			}
			if err := a.print(cmd, e, func(w io.Writer) error { return experimentTable(w, e) }); err != nil {
				return err
			}
			return experimentFailed(e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Prompt, "prompt", "", "the prompt (or @FILE)")
	f.StringVar(&req.SystemPrompt, "system-prompt", "", "a system prompt (or @FILE)")
	f.StringArrayVar(&req.ModelIDs, "model", nil, "a model to run the prompt on (repeat for each, 1–10)")
	f.BoolVar(&evaluate, "evaluate", false, "score each answer with an evaluator model")
	f.StringVar(&req.EvaluatorModelID, "evaluator", "", "the evaluator model (default: the server's default model)")
	f.StringVar(&req.EvaluationComplexity, "complexity", "", "evaluation depth: simple, medium (default) or complex")
	f.StringVar(&req.JSONTemplate, "json-template", "", `advanced mode: a JSON payload {"messages": [{"role", "content"}], "max_tokens", "temperature"} (or @FILE)`)
	f.StringVar(&req.SelectedStepOutput, "step-output", "", "a reference output the evaluator compares against (or @FILE)")
	f.BoolVar(&wait, "wait", false, "wait until the experiment finishes and show its results")
	f.DurationVar(&interval, "interval", time.Second, "how often --wait polls")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "how long --wait waits (0: no limit)")
	return cmd
}

func experimentTable(w io.Writer, e *client.Experiment) error {
	progress := "-"
	if e.ProgressCurrent != nil && e.ProgressTotal != nil {
		progress = fmt.Sprintf("%d/%d %s", *e.ProgressCurrent, *e.ProgressTotal, mdDeref(e.ProgressMessage))
	}
	if err := writeFields(w, [][2]string{{"Experiment", e.ID}, {"Status", e.Status}, {"Progress", progress},
		{"Models", strings.Join(e.SelectedModelIDs, ", ")}, {"Evaluation", e.EvaluationMode + " (" + e.EvaluationComplexity + ")"},
		{"Error", orNone(mdDeref(e.ErrorMessage))}}); err != nil {
		return err
	}
	res, err := e.Results()
	if err != nil || res == nil {
		return err
	}
	fmt.Fprintln(w)
	rows := make([][]string, len(res.Models))
	for i, m := range res.Models {
		score := "-"
		if m.Evaluation != nil && m.Evaluation.Score != nil {
			score = strconv.FormatFloat(*m.Evaluation.Score, 'f', 2, 64)
		}
		out := mdDeref(m.Output)
		if m.Error != "" {
			out = "error: " + m.Error
		}
		out = strings.Join(strings.Fields(out), " ")
		if len(out) > 80 {
			out = out[:77] + "..."
		}
		rows[i] = []string{m.ModelID, m.Status, strconv.FormatInt(m.LatencyMS, 10), strconv.Itoa(m.TotalTokens),
			strconv.FormatInt(m.Credits, 10), score, orNone(out)}
	}
	if err := writeTable(w, []string{"Model", "Status", "ms", "Tokens", "Credits", "Score", "Output"}, rows); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "\nTotal: %d calls, %s credits\n", res.Totals.Calls, strconv.FormatFloat(res.Totals.Credits, 'f', -1, 64))
	return err
}

func (a *App) playgroundList() *cobra.Command {
	var (
		o   client.ExperimentListOptions
		all bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List experiments, newest first",
		Long: `List the experiments created in the last --days (30), or between
--start-date and --end-date (YYYY-MM-DD, inclusive). One page (--offset,
--limit) or all of them with --all. JSON output is an array.`,
		Example: `  agentry playground list -o table
  agentry playground list --start-date 2026-07-01 --end-date 2026-07-31 --all`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.ExperimentSummary{}
			if all {
				for x, err := range c.Experiments(cmd.Context(), o) {
					if err != nil {
						return err
					}
					items = append(items, x)
				}
			} else {
				p, err := c.ListExperiments(cmd.Context(), o)
				if err != nil {
					return err
				}
				items = append(items, p.Items...)
				if p.HasNext {
					fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d experiments: --offset %d for more, or --all\n", len(p.Items), p.Total, p.Offset+len(p.Items))
				}
			}
			return a.print(cmd, items, func(w io.Writer) error {
				rows := make([][]string, len(items))
				for i, x := range items {
					rows[i] = []string{x.ID, x.CreatedAt, x.Status, x.EvaluationMode, strings.Join(x.SelectedModelIDs, ", ")}
				}
				return writeTable(w, []string{"ID", "Created", "Status", "Evaluation", "Models"}, rows)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Days, "days", 0, "look back this many days (server default 30, at most 730)")
	f.StringVar(&o.StartDate, "start-date", "", "first day, YYYY-MM-DD (overrides --days)")
	f.StringVar(&o.EndDate, "end-date", "", "last day, YYYY-MM-DD (overrides --days)")
	f.IntVar(&o.Offset, "offset", 0, "experiments to skip")
	f.IntVar(&o.Limit, "limit", 20, "experiments per page (at most 50)")
	f.BoolVar(&all, "all", false, "list every experiment, fetching page after page")
	return cmd
}

func (a *App) playgroundGet() *cobra.Command {
	return &cobra.Command{
		Use:     "get EXPERIMENT_ID",
		Short:   "Show an experiment and its results so far",
		Example: "  agentry playground get 0190… -o table\n  agentry playground get 0190… | jq '.result_data.models[] | {model_id, credits}'",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			e, err := c.GetExperiment(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(cmd, e, func(w io.Writer) error { return experimentTable(w, e) })
		},
	}
}

func (a *App) playgroundWait() *cobra.Command {
	var interval, timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait EXPERIMENT_ID",
		Short: "Wait for an experiment to finish and show its results",
		Long: `Poll an experiment until it is completed, failed or canceled. A failed
experiment exits with status 1, a wait that times out with 11.`,
		Example: "  agentry playground wait 0190… --timeout 2m -o table",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			e, err := c.WaitExperiment(cmd.Context(), args[0], interval, timeout)
			if err != nil {
				return err
			}
			if err := a.print(cmd, e, func(w io.Writer) error { return experimentTable(w, e) }); err != nil {
				return err
			}
			return experimentFailed(e)
		},
	}
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "how often to poll")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "how long to wait (0: no limit)")
	return cmd
}

func (a *App) playgroundCancel() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel EXPERIMENT_ID",
		Short: "Cancel a pending or running experiment",
		Long: `Cancel an experiment: its model calls still in flight are aborted and it is
marked canceled; answers that arrived are kept. One that already finished
exits with status 6.`,
		Example: "  agentry playground cancel 0190…",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			st, err := c.CancelExperiment(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(cmd, map[string]string{"status": st}, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Experiment", args[0]}, {"Status", st}})
			})
		},
	}
}

func (a *App) playgroundDelete() *cobra.Command {
	return &cobra.Command{
		Use:     "delete EXPERIMENT_ID",
		Short:   "Delete an experiment (cancelling it if it runs)",
		Example: "  agentry playground delete 0190…",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteExperiment(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "experiment %s deleted\n", args[0])
			return nil
		},
	}
}
