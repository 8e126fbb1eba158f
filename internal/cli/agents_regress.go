package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// agentsRegress is `agentry agents regress`: replay recorded runs on a
// version of the workflow (an Agentry extension of the API).
func (a *App) agentsRegress() *cobra.Command {
	var (
		req               client.RegressionRequest
		wait              bool
		interval, timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "regress AGENT_ID (--last N | --run-ids ID,…)",
		Short: "Replay recorded runs on a workflow version and compare their outputs",
		Long: `Start a regression run: replay the inputs of the agent's last N finished
runs (--last) or of chosen runs (--run-ids) on a version of its workflow
(--change-id, the current one by default), in the background. Each output is
judged with the agent's evaluation criteria, like the original's, and
compared with it. With --wait, show a progress bar (on a terminal) until it
ends, then the report. See docs/regressions.md.`,
		Example: `  agentry agents regress 0190… --last 20 --change-id 0193… --wait -o table
  agentry agents regress 0190… --run-ids 0191…,0192…`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (req.LastRuns == 0) == (len(req.RunIDs) == 0) {
				return usageErrorf("give --last N or --run-ids, one of the two")
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			reg, err := c.StartRegression(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			if wait {
				if reg, err = waitRegression(cmd.Context(), c, reg, interval, timeout, cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			return a.printRegression(cmd, reg)
		},
	}
	f := cmd.Flags()
	f.IntVar(&req.LastRuns, "last", 0, "replay the agent's last N finished runs (1-100)")
	f.StringSliceVar(&req.RunIDs, "run-ids", nil, "replay these finished runs of the agent (comma-separated, at most 100)")
	f.StringVar(&req.ChangeID, "change-id", "", "the workflow version to replay on (default: the current one)")
	f.BoolVar(&wait, "wait", false, "wait until the regression ends, with a progress bar on a terminal")
	f.DurationVar(&interval, "interval", time.Second, "how often --wait polls")
	f.DurationVar(&timeout, "timeout", 30*time.Minute, "how long --wait waits (0: no limit)")
	return cmd
}

// agentsRegressions is `agentry agents regressions …`: list, show and
// cancel regression runs.
func (a *App) agentsRegressions() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "regressions",
		Short: "List, show and cancel an agent's regression runs",
		Long: `A regression run (started by agentry agents regress) replays recorded runs on
a workflow version and compares their outputs. These commands use Agentry's
regressions extension of the API. See docs/regressions.md.`,
	}
	get := a.agentCmd("get AGENT_ID REGRESSION_ID", "Show a regression run with its progress and report",
		`  agentry agents regressions get 0190… 0194… -o table`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			r, err := c.GetRegression(cmd.Context(), args[0], args[1])
			if err != nil {
				return nil, nil, err
			}
			return r, func(w io.Writer) error { return regressionTable(w, r) }, nil
		})
	cancel := a.agentCmd("cancel AGENT_ID REGRESSION_ID", "Stop a regression run (its running replays are cancelled)",
		`  agentry agents regressions cancel 0190… 0194…`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			r, err := c.CancelRegression(cmd.Context(), args[0], args[1])
			if err != nil {
				return nil, nil, err
			}
			return r, func(w io.Writer) error { return regressionTable(w, r) }, nil
		})
	var o client.RegressionListOptions
	list := a.agentCmd("list AGENT_ID", "List an agent's regression runs, newest first",
		`  agentry agents regressions list 0190… -o table`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			p, err := c.ListRegressions(cmd.Context(), args[0], o)
			if err != nil {
				return nil, nil, err
			}
			items := append([]client.Regression{}, p.Items...)
			if p.HasNext {
				fmt.Fprintf(cmd.ErrOrStderr(), "page %d of %d (%d regressions): --page %d for more\n", p.Page, p.Pages, p.Total, p.Page+1)
			}
			return items, func(w io.Writer) error { return regressionsTable(w, items) }, nil
		})
	list.Flags().IntVar(&o.Page, "page", 1, "page to show")
	list.Flags().IntVar(&o.Limit, "limit", 20, "regressions per page (at most 100)")
	cmd.AddCommand(list, get, cancel)
	return cmd
}

// waitRegression polls a regression until it ends, drawing its progress
// on stderr when that is a terminal.
func waitRegression(ctx context.Context, c *client.Client, reg *client.Regression, interval, timeout time.Duration, stderr io.Writer) (*client.Regression, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	bar := io.Discard
	if isTerminal(stderr) {
		bar = stderr
	}
	for {
		drawRegression(bar, reg)
		if reg.Ended() {
			fmt.Fprintln(bar)
			return reg, nil
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(bar)
			return nil, fmt.Errorf("regression %s still %s: %w", reg.RegressionID, reg.Status, ctx.Err())
		case <-time.After(interval):
		}
		next, err := c.GetRegression(ctx, reg.AgentID, reg.RegressionID)
		if err != nil {
			return nil, err
		}
		reg = next
	}
}

// drawRegression draws one line:
//
//	regression [==========>             ]  45%  9/20 runs  2 changed
func drawRegression(w io.Writer, r *client.Regression) {
	const width = 24
	p := r.Progress
	frac := 0.0
	if p.Total > 0 {
		frac = min(float64(p.Finished)/float64(p.Total), 1)
	}
	filled := int(frac * width)
	bar := strings.Repeat("=", filled)
	if filled < width {
		bar += ">" + strings.Repeat(" ", width-filled-1)
	}
	fmt.Fprintf(w, "\rregression [%s] %3.0f%%  %d/%d runs  %d changed   ", bar, frac*100, p.Finished, p.Total, r.Report.Changed)
}

func (a *App) printRegression(cmd *cobra.Command, r *client.Regression) error {
	return a.print(cmd, r, func(w io.Writer) error { return regressionTable(w, r) })
}

func rate(f *float64) string {
	if f == nil {
		return "-"
	}
	return strconv.FormatFloat(*f*100, 'f', 1, 64) + "%"
}

// regressionTable prints a regression's summary, then each changed run
// with its outputs side by side.
func regressionTable(w io.Writer, r *client.Regression) error {
	p, rep := r.Progress, r.Report
	if err := writeFields(w, [][2]string{{"ID", r.RegressionID}, {"Status", r.Status}, {"Version", r.ChangeID},
		{"Progress", fmt.Sprintf("%d/%d judged (%d started)", p.Finished, p.Total, p.Started)},
		{"Pass rate", rate(rep.PassRateBefore) + " -> " + rate(rep.PassRateAfter)},
		{"Outputs", fmt.Sprintf("%d unchanged, %d changed", rep.Unchanged, rep.Changed)},
		{"Credits", fmt.Sprintf("%g spent (estimated %g)", rep.CreditsSpent, r.EstimatedCredits)}}); err != nil {
		return err
	}
	rows := [][]string{}
	for _, it := range r.Runs {
		if it.Outcome == nil || *it.Outcome != "changed" {
			continue
		}
		sim := "-"
		if it.Similarity != nil {
			sim = strconv.FormatFloat(*it.Similarity, 'f', 3, 64)
		}
		rows = append(rows, []string{it.SourceRunID, strOr(it.ReplayRunID), sim, runsCell(strOr(it.SourceOutput), 40), runsCell(strOr(it.ReplayOutput), 40)})
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return writeTable(w, []string{"Run", "Replay", "Similarity", "Before", "After"}, rows)
}

func regressionsTable(w io.Writer, rs []client.Regression) error {
	rows := make([][]string, len(rs))
	for i, r := range rs {
		rows[i] = []string{r.RegressionID, r.Status, r.ChangeID, fmt.Sprintf("%d/%d", r.Progress.Finished, r.Progress.Total),
			rate(r.Report.PassRateBefore) + " -> " + rate(r.Report.PassRateAfter), strconv.Itoa(r.Report.Changed), r.CreatedAt}
	}
	return writeTable(w, []string{"ID", "Status", "Version", "Judged", "Pass rate", "Changed", "Created"}, rows)
}
