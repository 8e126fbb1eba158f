package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// defaultReconnectFor is how long a broken run stream keeps reconnecting
// (with backoff) before the command gives up with ExitUnreachable: long
// enough for a server restart.
const defaultReconnectFor = time.Minute

func reconnectFlag(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "reconnect-for", defaultReconnectFor,
		"how long to keep reconnecting (with backoff) when the stream breaks, e.g. while the server restarts; then exit with status 10")
}

// runsFollow is `agentry runs follow RUN_ID`: re-attach to the event stream
// of a run that already exists, from its first event, and print it as
// `runs stream` does.
func (a *App) runsFollow() *cobra.Command {
	var (
		reconnectFor time.Duration
		agentID      string
	)
	cmd := &cobra.Command{
		Use:   "follow RUN_ID [--agent AGENT_ID]",
		Short: "Re-attach to a run's event stream and print it as runs stream does",
		Long: `Follow the events of a run that already exists (started with runs start, or
a runs stream you interrupted) from its first event to its end, printing
its answer, or with -o json every event as one JSON line. It starts
nothing; a run that has already finished prints its output at once. A
failed run exits with status 1; a stream that cannot be resumed within
--reconnect-for exits with status 10.

A run's stream lives under its agent. --agent names it (the hint printed on
Ctrl-C gives it); without it, the run is looked up among the 100 most recent
runs of each of the account's agents.`,
		Example: `  agentry runs follow 0190…
  agentry runs follow 0190… --agent 0191…
  agentry runs follow 0190… -o json | jq -c 'select(.event=="step_completed")'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := a.format(cmd.OutOrStdout()); err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			// A run that does not exist is a 404 before any search.
			if _, err := c.GetRun(cmd.Context(), args[0], false); err != nil {
				return err
			}
			if agentID == "" {
				if agentID, err = agentOfRun(cmd.Context(), c, args[0]); err != nil {
					return err
				}
			}
			events := c.FollowRun(cmd.Context(), agentID, args[0], client.WithReconnectFor(reconnectFor))
			return a.followRun(cmd, agentID, events, a.Output == formatJSON)
		},
	}
	reconnectFlag(cmd, &reconnectFor)
	cmd.Flags().StringVar(&agentID, "agent", "", "the run's agent (found among the agents' recent runs when left out)")
	return cmd
}

// agentOfRun finds the agent of a run: the API's run snapshot does not name
// it, so look through the recent runs of each agent.
func agentOfRun(ctx context.Context, c *client.Client, runID string) (string, error) {
	for ag, err := range c.Agents(ctx, client.AgentListOptions{}) {
		if err != nil {
			return "", err
		}
		p, err := c.ListRuns(ctx, ag.ID, client.RunListOptions{Limit: 100})
		if err != nil {
			return "", err
		}
		for _, r := range p.Items {
			if r.RunID == runID {
				return ag.ID, nil
			}
		}
	}
	return "", usageErrorf("run %s is not among your agents' 100 most recent runs each: give its agent with --agent", runID)
}

// interruptedRun explains how a run stream ended early: Ctrl-C leaves the
// run running, so say which run and how to pick it up again; a stream
// that could not be resumed names the run too.
func interruptedRun(cmd *cobra.Command, agentID, runID string, err error) error {
	if runID == "" {
		if agentID != "" && errors.Is(err, client.ErrStreamDropped) {
			fmt.Fprintf(cmd.ErrOrStderr(), "the stream broke before naming its run; the run may have started: see\n  agentry runs list %s\n", agentID)
		}
		return err
	}
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(cmd.ErrOrStderr(), "stopped following run %s; it goes on. Follow it again with:\n  agentry runs follow %s%s\n", runID, runID, agentFlag(agentID))
	case errors.Is(err, client.ErrStreamDropped):
		fmt.Fprintf(cmd.ErrOrStderr(), "lost the stream of run %s; when the server is back, follow it again with:\n  agentry runs follow %s%s\n", runID, runID, agentFlag(agentID))
	}
	return err
}

func agentFlag(agentID string) string {
	if agentID == "" {
		return ""
	}
	return " --agent " + agentID
}

// tableOutputRunes is how much of a run's output a table shows; -o json
// shows all of it.
const tableOutputRunes = 400

// truncatedCell reports whether runsCell(s, n) shortens s.
func truncatedCell(s string, n int) bool {
	return len([]rune(strings.Join(strings.Fields(s), " "))) > n
}

// hintLargeInput adds, to a 413 of runs start or runs stream, the way to
// send a large input: upload it as a file and pass its id.
func hintLargeInput(cmd *cobra.Command, err error) error {
	var apiErr *client.APIError
	if err == nil || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusRequestEntityTooLarge ||
		cmd.Parent() == nil || cmd.Parent().Name() != "runs" {
		return err
	}
	return &hinted{err, "hint: send a large input as a file: `agentry agents upload-input AGENT_ID --file FILE --wait`, then `agentry runs " +
		cmd.Name() + " AGENT_ID --input-upload-id UPLOAD_ID`"}
}
