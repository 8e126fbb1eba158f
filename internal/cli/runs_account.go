package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// The account-wide run views (extensions): runs all, runs summary and
// runs details; added to `agentry runs` in runsCommand.

func (a *App) runsAll() *cobra.Command {
	var (
		o             client.AccountRunsOptions
		after, before string
		all           bool
	)
	cmd := &cobra.Command{
		Use:   "all",
		Short: "List the account's runs across all agents, newest first",
		Long: `List the runs of every agent of the account, newest first, filtered by
agent, status, trigger and creation time (an extension: GET /runs). One page
at a time (--cursor with the cursor printed on stderr), or every run with
--all. JSON output is an array of runs without their input and output.`,
		Example: `  agentry runs all
  agentry runs all --status failed --since 24h -o table
  agentry runs all --trigger schedule --agent-id 0190… --all | jq -r '.[].run_id'`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.CreatedAfter, err = sinceOrTime(after); err != nil {
				return usageErrorf("--since: %v", err)
			}
			if o.CreatedBefore, err = sinceOrTime(before); err != nil {
				return usageErrorf("--until: %v", err)
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.RunListItem{}
			if all {
				for r, err := range c.AllAccountRuns(cmd.Context(), o) {
					if err != nil {
						return err
					}
					items = append(items, r)
				}
			} else {
				p, err := c.AccountRuns(cmd.Context(), o)
				if err != nil {
					return err
				}
				items = append(items, p.Data...)
				if p.NextCursor != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "more runs: --cursor %s for the next page, or --all\n", *p.NextCursor)
				}
			}
			return a.print(cmd, items, func(w io.Writer) error { return runListTable(w, items) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.AgentID, "agent-id", "", "only this agent's runs")
	f.StringVar(&o.Status, "status", "", "only runs in this status: pending, processing, completed, failed, queued, waiting_human, waiting_scheduled")
	f.StringVar(&o.Trigger, "trigger", "", "only runs of this trigger type (dynamic_input, schedule, call_agent, email…)")
	f.StringVar(&after, "since", "", "only runs created since: a duration ago (24h) or an RFC 3339 time")
	f.StringVar(&before, "until", "", "only runs created before: a duration ago (1h) or an RFC 3339 time")
	f.StringVar(&o.Cursor, "cursor", "", "the cursor of the page to show (printed after the previous one)")
	f.IntVar(&o.Limit, "limit", 50, "runs per page (at most 100)")
	f.BoolVar(&all, "all", false, "list every run, fetching page after page")
	return cmd
}

// sinceOrTime reads "24h" as that long ago, or an RFC 3339 time; "" is zero.
func sinceOrTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return time.Now().Add(-d), nil
	}
	return time.Parse(time.RFC3339, s)
}

func (a *App) runsSummary() *cobra.Command {
	var hours int
	cmd := &cobra.Command{
		Use:   "summary",
		Short: "Sum up the account's recent runs: by status, failure rate, durations, credits",
		Long: `Sum up the runs created in the last --hours hours (24 by default, at most
168): counts by status, failure rate, 50th and 95th percentile durations, credits
spent, and counts per hour (an extension: GET /runs/summary).`,
		Example: `  agentry runs summary
  agentry runs summary --hours 168 -o json | jq .failure_rate`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := c.RunsSummary(cmd.Context(), hours)
			if err != nil {
				return err
			}
			return a.print(cmd, s, func(w io.Writer) error {
				secs := func(v *float64) string {
					if v == nil {
						return "-"
					}
					return strconv.FormatFloat(*v, 'f', 3, 64) + "s"
				}
				rows := [][]string{{"Window", s.From + " – " + s.To}, {"Runs", strconv.Itoa(s.Total)}}
				for _, st := range []string{client.RunCompleted, client.RunFailed, client.RunProcessing, client.RunPending, client.RunQueued,
					client.RunWaitingHuman, client.RunWaitingScheduled} {
					if n := s.ByStatus[st]; n > 0 {
						rows = append(rows, []string{"  " + st, strconv.Itoa(n)})
					}
				}
				rows = append(rows, []string{"Failure rate", strconv.FormatFloat(100*s.FailureRate, 'f', 1, 64) + "%"},
					[]string{"Duration p50", secs(s.P50Seconds)}, []string{"Duration p95", secs(s.P95Seconds)},
					[]string{"Credits", strconv.FormatFloat(s.Credits, 'f', -1, 64)})
				if s.Truncated {
					rows = append(rows, []string{"Note", "more than 200,000 runs: the newest were summed up"})
				}
				return writeTable(w, []string{"", ""}, rows)
			})
		},
	}
	cmd.Flags().IntVar(&hours, "hours", 24, "the window: this many hours back from now (1–168)")
	return cmd
}

func (a *App) runsDetails() *cobra.Command {
	return &cobra.Command{
		Use:   "details RUN_ID",
		Short: "Show a run's agent, trigger, times, sub-runs and files",
		Long: `Show what runs get does not: the run's agent, trigger, times, the run that
started it, the sub-runs its call_agent steps started and the files its steps
emitted (an extension: GET /runs/{run_id}). Download a file with runs download.`,
		Example: `  agentry runs details 0190…
  agentry runs details 0190… -o json | jq -r '.attachments[].attachment_id'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.GetRunDetails(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(cmd, d, func(w io.Writer) error {
				if err := runListTable(w, []client.RunListItem{d.RunListItem}); err != nil {
					return err
				}
				if len(d.Children) > 0 {
					fmt.Fprintln(w, "\nSub-runs:")
					if err := runListTable(w, d.Children); err != nil {
						return err
					}
				}
				if len(d.Attachments) > 0 {
					fmt.Fprintln(w, "\nFiles:")
					rows := make([][]string, len(d.Attachments))
					for i, f := range d.Attachments {
						rows[i] = []string{f.AttachmentID, f.Name, f.ContentType, strconv.FormatInt(f.Size, 10)}
					}
					return writeTable(w, []string{"Attachment ID", "Name", "Type", "Bytes"}, rows)
				}
				return nil
			})
		},
	}
}

func runListTable(w io.Writer, rs []client.RunListItem) error {
	rows := make([][]string, len(rs))
	for i, r := range rs {
		dur := "-"
		if r.DurationSeconds != nil {
			dur = strconv.FormatFloat(*r.DurationSeconds, 'f', 3, 64) + "s"
		}
		rows[i] = []string{r.RunID, r.AgentID, r.Status, orNone(r.TriggerType), r.CreatedAt, dur,
			strconv.FormatFloat(r.Credits, 'f', -1, 64), orNone(runsCell(runsStr(r.Error), 40))}
	}
	return writeTable(w, []string{"Run ID", "Agent ID", "Status", "Trigger", "Created", "Duration", "Credits", "Error"}, rows)
}
