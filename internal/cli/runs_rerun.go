package cli

import (
	"io"
	"os"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// runsRerun is `agentry runs rerun`: a new run from a step of a finished
// run (an Agentry extension of the API).
func (a *App) runsRerun() *cobra.Command {
	var (
		req               client.RerunRequest
		input, inputFile  string
		inputSet, wait    bool
		interval, timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "rerun RUN_ID --from-step STEP",
		Short: "Run again from a step of a finished run, reusing the steps before it",
		Long: `Start a new run from a step of a completed, failed or cancelled run. The
steps the run completed before that step keep their recorded outputs (shown
as reused: not executed nor billed again); the step and everything after it
run again, on the run's version of the workflow or, with --change-id,
another (e.g. the one that fixes the failing step), and with --input /
--input-file replacing the step's recorded input. With --wait, poll the new
run until it completes or fails. See docs/versions.md.`,
		Example: `  agentry runs rerun 0190… --from-step summarize --change-id 0193… --wait
  agentry runs rerun 0190… --from-step draft --input "a corrected draft" -o table`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if req.FromStep == "" {
				return usageErrorf("--from-step is required")
			}
			inputSet = cmd.Flags().Changed("input")
			switch {
			case inputSet && inputFile != "":
				return usageErrorf("give --input or --input-file, not both")
			case inputSet:
				req.Input = &input
			case inputFile == "-":
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				s := string(b)
				req.Input = &s
			case inputFile != "":
				b, err := os.ReadFile(inputFile)
				if err != nil {
					return usageErrorf("%v", err)
				}
				s := string(b)
				req.Input = &s
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.RerunRun(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return a.showStartedRun(cmd, c, r, wait, interval, timeout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.FromStep, "from-step", "", "the step key to run again from (a step's agent_step_id)")
	f.StringVar(&req.ChangeID, "change-id", "", "run this version of the workflow (default: the run's own)")
	f.StringVar(&input, "input", "", "the input the step receives instead of the recorded one")
	f.StringVar(&inputFile, "input-file", "", "read that input from a file (- for stdin)")
	f.BoolVar(&wait, "wait", false, "wait until the new run completes or fails")
	f.DurationVar(&interval, "interval", time.Second, "how often --wait polls")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "how long --wait waits (0: no limit)")
	return cmd
}
