package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(runsCommand) }

// runsCommand is `agentry runs …`: starting, streaming, inspecting,
// searching and cancelling agent runs, and downloading their files.
func runsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Start, stream, inspect, search, cancel and review agent runs",
		Long: `Runs execute an agent's workflow. Start one and poll it (runs start --wait),
or stream its events as they happen (runs stream). See docs/runs.md.`,
	}
	cmd.AddCommand(a.runsStart(), a.runsStream(), a.runsGet(), a.runsList(), a.runsSearch(), a.runsCancel(), a.runsDownload(), a.runsReview())
	cmd.AddCommand(a.runsFollow(), a.runsAll(), a.runsSummary(), a.runsDetails(), a.runsRerun())
	return cmd
}

// runInput is the input flags runs start and runs stream share.
type runInput struct {
	input, inputFile, metadata string
	uploadIDs                  []string
	changeID                   string
}

func (in *runInput) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&in.input, "input", "", "the run's input text")
	f.StringVar(&in.inputFile, "input-file", "", "read the input from a file (- for stdin)")
	f.StringVar(&in.metadata, "metadata", "", `a JSON object for {{metadata.key}} placeholders, e.g. '{"lang":"fr"}'`)
	f.StringArrayVar(&in.uploadIDs, "input-upload-id", nil, "a file uploaded with `agents upload-input` to give the run (repeatable)")
	f.StringVar(&in.changeID, "change-id", "", "run this version of the workflow (see `agents versions list`) instead of the current one")
}

func (in *runInput) request(cmd *cobra.Command) (client.AgentRunRequest, error) {
	req := client.AgentRunRequest{ChangeID: in.changeID}
	switch {
	case in.input != "" && in.inputFile != "":
		return req, usageErrorf("give --input or --input-file, not both")
	case in.inputFile == "-":
		b, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return req, err
		}
		req.Input = string(b)
	case in.inputFile != "":
		b, err := os.ReadFile(in.inputFile)
		if err != nil {
			return req, usageErrorf("%v", err)
		}
		req.Input = string(b)
	default:
		req.Input = in.input
	}
	if in.metadata != "" {
		if err := json.Unmarshal([]byte(in.metadata), &req.Metadata); err != nil || req.Metadata == nil {
			return req, usageErrorf("--metadata must be a JSON object: %s", in.metadata)
		}
	}
	req.InputUploadIDs = in.uploadIDs
	return req, nil
}

// runFailed is a run that finished failed, after its snapshot was shown.
func runFailed(r *client.AgentRunResponse) error {
	if r.Status != client.RunFailed {
		return nil
	}
	return fmt.Errorf("run %s failed: %s", r.RunID, orNone(r.LastError()))
}

func (a *App) runsStart() *cobra.Command {
	var (
		in       runInput
		priority bool
		wait     bool
		interval time.Duration
		timeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "start AGENT_ID",
		Short: "Start a run (and, with --wait, wait for its result)",
		Long: `Start a run and show its first snapshot. With --wait, poll it until it
completes or fails and show the final one; a failed run exits with status 1,
a wait that times out with 11.`,
		Example: `  agentry runs start 0190… --input "What is our refund policy?"
  agentry runs start 0190… --input-file question.txt --metadata '{"lang":"fr"}' --wait
  echo "Summarise this" | agentry runs start 0190… --input-file - --priority --wait -o table`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := in.request(cmd)
			if err != nil {
				return err
			}
			req.Priority = priority
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.StartRun(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return a.showStartedRun(cmd, c, r, wait, interval, timeout)
		},
	}
	in.flags(cmd)
	cmd.Flags().BoolVar(&priority, "priority", false, "dispatch ahead of normal runs (and stream tokens of streaming_result steps)")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the run completes or fails")
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "how often --wait polls")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "how long --wait waits (0: no limit)")
	return cmd
}

func (a *App) runsStream() *cobra.Command {
	var (
		in           runInput
		reconnectFor time.Duration
	)
	cmd := &cobra.Command{
		Use:   "stream AGENT_ID",
		Short: "Start a priority run and print its answer as it is written",
		Long: `Start a priority run and follow its events. The tokens of the agent's
streaming_result step are printed as they arrive, then a newline; an agent
that streams nothing prints its output when it finishes. With -o json every
event is printed as one JSON line instead: {"event", "id", "data"}.

A dropped connection is resumed where it broke (Last-Event-ID), without
starting another run; while the server restarts, the command keeps trying
with backoff for --reconnect-for (a minute) and then exits with status 10.
Ctrl-C stops following but not the run: it prints the run id and the
command that picks the stream up again (agentry runs follow RUN_ID). A
failed run exits with status 1.`,
		Example: `  agentry runs stream 0190… --input "Explain SSE in one paragraph"
  agentry runs stream 0190… --input-file notes.md --metadata '{"tone":"formal"}'
  agentry runs stream 0190… --input hi -o json | jq -c 'select(.event=="step_completed")'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := a.format(cmd.OutOrStdout()); err != nil {
				return err // an unknown -o is a usage error here too
			}
			req, err := in.request(cmd)
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			// Text unless JSON is asked for explicitly: a pipe wants the
			// answer itself, not the events.
			return a.followRun(cmd, args[0], c.StreamRun(cmd.Context(), args[0], req, client.WithReconnectFor(reconnectFor)), a.Output == formatJSON)
		},
	}
	in.flags(cmd)
	reconnectFlag(cmd, &reconnectFor)
	return cmd
}

// followRun prints a run stream: JSON lines, or the tokens as they arrive.
// Every write goes straight to stdout, unbuffered, so the answer shows
// while it is being written.
func (a *App) followRun(cmd *cobra.Command, agentID string, events iter.Seq2[client.RunEvent, error], asJSON bool) error {
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	streamed := false
	runID := ""
	for ev, err := range events {
		if err != nil {
			if streamed {
				fmt.Fprintln(out)
			}
			return interruptedRun(cmd, agentID, runID, err)
		}
		if ev.RunID != "" {
			runID = ev.RunID
		}
		if asJSON {
			line, err := json.Marshal(struct {
				Event string          `json:"event"`
				ID    string          `json:"id,omitempty"`
				Data  json.RawMessage `json:"data"`
			}{ev.Type, ev.ID, ev.Data})
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(out, "%s\n", line); err != nil {
				return err
			}
			if ev.Type == client.EventDone {
				return runFailed(ev.Snapshot)
			}
			continue
		}
		switch ev.Type {
		case client.EventStreamToken:
			if _, err := io.WriteString(out, ev.Token); err != nil {
				return err
			}
			streamed = true
		case client.EventWaitingHuman:
			fmt.Fprintf(errw, "run %s is waiting for a human review; the stream continues once it is decided\n", ev.RunID)
		case client.EventDone:
			if !streamed {
				if _, err := io.WriteString(out, ev.Snapshot.OutputText()); err != nil {
					return err
				}
			}
			fmt.Fprintln(out)
			return runFailed(ev.Snapshot)
		}
	}
	return client.ErrStreamEnded
}

func (a *App) runsGet() *cobra.Command {
	var steps bool
	cmd := &cobra.Command{
		Use:   "get RUN_ID",
		Short: "Show a run: status, output, attempts (and steps with --steps)",
		Example: `  agentry runs get 0190…
  agentry runs get 0190… --steps -o table
  agentry runs get 0190… | jq -r .output`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.GetRun(cmd.Context(), args[0], steps)
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error { return runTable(w, r) })
		},
	}
	cmd.Flags().BoolVar(&steps, "steps", false, "include every step's input, output, timing and credits")
	return cmd
}

func (a *App) runsList() *cobra.Command {
	var (
		o   client.RunListOptions
		all bool
	)
	cmd := &cobra.Command{
		Use:   "list AGENT_ID",
		Short: "List an agent's runs, newest first",
		Long: `List an agent's runs, newest first: one page (--page, --limit), or every
run with --all. JSON output is an array of run snapshots.`,
		Example: `  agentry runs list 0190…
  agentry runs list 0190… --status failed --limit 20 -o table
  agentry runs list 0190… --all | jq -r '.[].run_id'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.AgentRunResponse{}
			if all {
				for r, err := range c.Runs(cmd.Context(), args[0], o) {
					if err != nil {
						return err
					}
					items = append(items, r)
				}
			} else {
				p, err := c.ListRuns(cmd.Context(), args[0], o)
				if err != nil {
					return err
				}
				items = append(items, p.Items...)
				if p.HasNext {
					fmt.Fprintf(cmd.ErrOrStderr(), "page %d of %d (%d runs): --page %d for more, or --all\n", p.Page, p.Pages, p.Total, p.Page+1)
				}
			}
			return a.print(cmd, items, func(w io.Writer) error { return runsTable(w, items) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Status, "status", "", "only runs in this status: pending, processing, completed, failed, queued, waiting_human, waiting_scheduled")
	f.IntVar(&o.Page, "page", 1, "page to show")
	f.IntVar(&o.Limit, "limit", 50, "runs per page (at most 100)")
	f.BoolVar(&all, "all", false, "list every run, fetching page after page")
	return cmd
}

func (a *App) runsSearch() *cobra.Command {
	var req client.AgentTraceSearchRequest
	cmd := &cobra.Command{
		Use:   "search --query TEXT",
		Short: "Search the inputs and outputs of run steps",
		Long: `Rank the step inputs and outputs of your runs by similarity to a query
(meaning and exact words both count). Filters narrow by agent, run status
and step type.`,
		Example: `  agentry runs search --query "refund over 30 days"
  agentry runs search --query "timeout calling CRM" --agent-id 0190… --run-status failed -o table
  agentry runs search --query invoice --step-type prompt_call --top 3`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(req.Query) == "" {
				return usageErrorf("--query is required")
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			res, err := c.SearchTraces(cmd.Context(), req)
			if err != nil {
				return err
			}
			return a.print(cmd, res, func(w io.Writer) error { return matchesTable(w, res.Matches) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Query, "query", "", "what to look for (required)")
	f.StringVar(&req.AgentID, "agent-id", "", "only this agent's runs")
	f.StringVar(&req.RunStatus, "run-status", "", "only runs in this status")
	f.StringVar(&req.StepType, "step-type", "", "only steps of this type (prompt_call, webhook_call…)")
	f.IntVar(&req.TopN, "top", 10, "how many matches (1–100)")
	return cmd
}

func (a *App) runsCancel() *cobra.Command {
	var (
		wait    bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "cancel RUN_ID",
		Short: "Cancel a queued or processing run",
		Long: `Ask a run to stop. A run not yet picked up fails at once; a running one stops
within a moment (--wait shows it failed with "Run cancelled"). A run that
already finished cannot be cancelled: exit status 6.`,
		Example: `  agentry runs cancel 0190…
  agentry runs cancel 0190… --wait -o table`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.CancelRun(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if wait {
				if r, err = c.PollRun(cmd.Context(), r.RunID, 250*time.Millisecond, timeout); err != nil {
					return err
				}
			}
			return a.print(cmd, r, func(w io.Writer) error { return runTable(w, r) })
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the run has stopped")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long --wait waits")
	return cmd
}

func (a *App) runsDownload() *cobra.Command {
	var file, name string
	cmd := &cobra.Command{
		Use:   "download RUN_ID ATTACHMENT_ID",
		Short: "Download a file a run's step produced",
		Long: `Download a file a step of the run emitted. ATTACHMENT_ID is the file's
storage key in URL-safe base64, as webhook and e-mail payloads give it. The
file is saved under the server's file name unless --file names another
(- writes to stdout).`,
		Example: `  agentry runs download 0190… cnVucy8wMTkwL2NoYXJ0LnBuZw
  agentry runs download 0190… cnVucy8wMTkwL2NoYXJ0LnBuZw --file chart.png
  agentry runs download 0190… cnVucy8wMTkwL3JlcG9ydC5wZGY --file - > report.pdf`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p := "/v2/agent-runs/" + url.PathEscape(args[0]) + "/attachments/" + url.PathEscape(args[1])
			if name != "" {
				p += "?" + url.Values{"download_name": {name}}.Encode()
			}
			return a.downloadTo(cmd, c, p, file)
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "where to save it (default: the server's file name; - for stdout)")
	cmd.Flags().StringVar(&name, "name", "", "the file name the server should give it")
	return cmd
}

// runTable shows one run: its fields, then its steps when it has them.
func runTable(w io.Writer, r *client.AgentRunResponse) error {
	credits := "-"
	if r.Credits != nil {
		credits = strconv.FormatFloat(*r.Credits, 'f', -1, 64)
	}
	fields := [][2]string{
		{"Run", r.RunID}, {"Status", r.Status}, {"Priority", strconv.FormatBool(r.Priority)},
		{"Credits", credits}, {"Errors", strconv.Itoa(r.ErrorCount)}, {"Attempts", strconv.Itoa(len(r.Attempts))},
		{"Error", orNone(r.LastError())}, {"Input", orNone(runsCell(runsStr(r.Input), 80))}, {"Output", orNone(runsCell(runsStr(r.Output), tableOutputRunes))},
	}
	if r.ChangeID != "" {
		fields = append(fields, [2]string{"Version", r.ChangeID})
	}
	if r.RerunOf != "" {
		fields = append(fields, [2]string{"Rerun of", r.RerunOf + " from step " + r.RerunFromStep})
	}
	if err := writeFields(w, fields); err != nil {
		return err
	}
	if truncatedCell(runsStr(r.Input), 80) || truncatedCell(runsStr(r.Output), tableOutputRunes) {
		fmt.Fprintln(w, "(long input or output shortened; -o json shows the whole run)")
	}
	if len(r.Steps) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	rows := make([][]string, len(r.Steps))
	for i, s := range r.Steps {
		dur := "-"
		if s.DurationSeconds != nil {
			dur = strconv.FormatFloat(*s.DurationSeconds, 'f', 3, 64) + "s"
		}
		status := s.Status
		if s.Reused {
			status += " (reused)"
		}
		rows[i] = []string{s.AgentStepID, s.StepType, status, dur, strconv.FormatFloat(s.CreditsUsed, 'f', -1, 64), orNone(runsCell(runsStr(s.Output), 60))}
	}
	return writeTable(w, []string{"Step", "Type", "Status", "Duration", "Credits", "Output"}, rows)
}

func runsTable(w io.Writer, rs []client.AgentRunResponse) error {
	rows := make([][]string, len(rs))
	for i, r := range rs {
		credits := "-"
		if r.Credits != nil {
			credits = strconv.FormatFloat(*r.Credits, 'f', -1, 64)
		}
		rows[i] = []string{r.RunID, r.Status, strconv.FormatBool(r.Priority), credits,
			orNone(runsCell(runsStr(r.Input), 30)), orNone(runsCell(runsStr(r.Output), 40))}
	}
	return writeTable(w, []string{"Run ID", "Status", "Priority", "Credits", "Input", "Output"}, rows)
}

func matchesTable(w io.Writer, ms []client.AgentTraceMatchResponse) error {
	rows := make([][]string, len(ms))
	for i, m := range ms {
		rows[i] = []string{strconv.FormatFloat(m.Score, 'f', 3, 64), orNone(runsStr(m.AgentRunID)), orNone(runsStr(m.AgentStepID)),
			orNone(runsStr(m.AgentStepType)), orNone(runsStr(m.AgentRunStatus)), runsCell(m.Text, 60)}
	}
	return writeTable(w, []string{"Score", "Run ID", "Step", "Type", "Run status", "Text"}, rows)
}

func runsStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// runsCell fits text in a table cell: whitespace folded, at most n runes.
func runsCell(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// showStartedRun prints a run just started (runs start, runs rerun), after
// waiting for it to stop when wait is set; a failed run exits non-zero.
func (a *App) showStartedRun(cmd *cobra.Command, c *client.Client, r *client.AgentRunResponse, wait bool, interval, timeout time.Duration) error {
	if wait {
		var err error
		if r, err = c.PollRun(cmd.Context(), r.RunID, interval, timeout); err != nil {
			return err
		}
	}
	if err := a.print(cmd, r, func(w io.Writer) error { return runTable(w, r) }); err != nil {
		return err
	}
	return runFailed(r)
}
