package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// agentsSchedules is `agentry agents schedules list|add|update|remove`: the
// schedules extension, for agents whose trigger is schedule.
func (a *App) agentsSchedules() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedules",
		Short: "List, add, change and remove an agent's cron schedules (extension)",
		Long: `An agent whose trigger is schedule starts a run each time one of its
schedules fires. A schedule is a cron expression (five fields, or @hourly,
@daily, @weekly, @monthly, @every 2h) read in an IANA time zone, with an
optional input for the runs it starts. An agent has at most 20. This is an
Agentry extension; see docs/schedules.md.`,
	}
	cmd.AddCommand(a.schedulesList(), a.schedulesAdd(), a.schedulesUpdate(), a.schedulesRemove())
	return cmd
}

func (a *App) schedulesList() *cobra.Command {
	return a.agentCmd("list AGENT_ID", "List an agent's schedules with their next fire times",
		"  agentry agents schedules list 0190… -o table", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			list, err := c.ListSchedules(cmd.Context(), args[0])
			if err != nil {
				return nil, nil, err
			}
			return list, func(w io.Writer) error { return schedulesTable(w, list) }, nil
		})
}

// scheduleFlags are the settings add and update share.
type scheduleFlags struct {
	cron, zone, input string
	enabled           bool
}

func (f *scheduleFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.cron, "cron", "", `cron expression: "MIN HOUR DOM MON DOW" or @daily, @every 2h…`)
	fl.StringVar(&f.zone, "timezone", "", "IANA time zone the expression is read in, such as Europe/Paris (default UTC)")
	fl.StringVar(&f.input, "input", "", `input of the runs it starts (update: "" removes it)`)
	fl.BoolVar(&f.enabled, "enabled", true, "whether it fires (--enabled=false pauses it)")
}

func (a *App) schedulesAdd() *cobra.Command {
	var f scheduleFlags
	cmd := a.agentCmd("add AGENT_ID --cron EXPR [--timezone ZONE] [--input TEXT]", "Add a schedule; prints it with its next fire time",
		`  agentry agents schedules add 0190… --cron "0 9 * * 1-5" --timezone Europe/Paris --input "Yesterday's numbers"
  agentry agents schedules add 0190… --cron @daily`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			if f.cron == "" {
				return nil, nil, usageErrorf("give --cron, a cron expression such as \"0 9 * * 1-5\" or @daily")
			}
			in := client.CreateScheduleRequest{CronExpression: f.cron}
			if cmd.Flags().Changed("timezone") {
				in.Timezone = &f.zone
			}
			if cmd.Flags().Changed("input") {
				in.Input = &f.input
			}
			if cmd.Flags().Changed("enabled") {
				in.Enabled = &f.enabled
			}
			sc, err := c.CreateSchedule(cmd.Context(), args[0], in)
			if err != nil {
				return nil, nil, err
			}
			return sc, func(w io.Writer) error { return scheduleFields(w, sc) }, nil
		})
	f.bind(cmd)
	return cmd
}

func (a *App) schedulesUpdate() *cobra.Command {
	var f scheduleFlags
	cmd := a.agentCmd("update AGENT_ID SCHEDULE_ID [--cron EXPR] [--timezone ZONE] [--input TEXT] [--enabled=BOOL]",
		"Change a schedule; only the flags given change",
		`  agentry agents schedules update 0190… 0191… --enabled=false
  agentry agents schedules update 0190… 0191… --cron "30 7 * * *" --timezone UTC`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			var in client.UpdateScheduleRequest
			set := false
			if cmd.Flags().Changed("cron") {
				in.CronExpression, set = &f.cron, true
			}
			if cmd.Flags().Changed("timezone") {
				in.Timezone, set = &f.zone, true
			}
			if cmd.Flags().Changed("input") {
				in.Input, set = &f.input, true
			}
			if cmd.Flags().Changed("enabled") {
				in.Enabled, set = &f.enabled, true
			}
			if !set {
				return nil, nil, usageErrorf("nothing to change: give --cron, --timezone, --input or --enabled")
			}
			sc, err := c.UpdateSchedule(cmd.Context(), args[0], args[1], in)
			if err != nil {
				return nil, nil, err
			}
			return sc, func(w io.Writer) error { return scheduleFields(w, sc) }, nil
		})
	f.bind(cmd)
	return cmd
}

func (a *App) schedulesRemove() *cobra.Command {
	return &cobra.Command{
		Use: "remove AGENT_ID SCHEDULE_ID", Short: "Remove a schedule", Args: exactArgs(2),
		Example: "  agentry agents schedules remove 0190… 0191…",
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteSchedule(cmd.Context(), args[0], args[1]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "removed schedule %s\n", args[1])
			return nil
		},
	}
}

func schedulesTable(w io.Writer, list []client.Schedule) error {
	rows := make([][]string, 0, len(list))
	for _, sc := range list {
		rows = append(rows, []string{sc.ID, sc.CronExpression, sc.Timezone, strconv.FormatBool(sc.Enabled), nextFire(sc), inputCell(sc.Input)})
	}
	return writeTable(w, []string{"ID", "Cron", "Time zone", "Enabled", "Next fire", "Input"}, rows)
}

func scheduleFields(w io.Writer, sc *client.Schedule) error {
	in := "-"
	if sc.Input != nil {
		in = *sc.Input
	}
	return writeFields(w, [][2]string{{"ID", sc.ID}, {"Agent", sc.AgentID}, {"Cron", sc.CronExpression},
		{"Time zone", sc.Timezone}, {"Enabled", strconv.FormatBool(sc.Enabled)}, {"Next fire", nextFire(*sc)}, {"Input", in}})
}

// nextFire shows the next fire time in UTC and in the schedule's zone.
func nextFire(sc client.Schedule) string {
	if sc.NextFireAt == nil {
		return "- (disabled)"
	}
	s := sc.NextFireAt.UTC().Format(time.RFC3339)
	if loc, err := time.LoadLocation(sc.Timezone); err == nil && loc != time.UTC {
		s += " (" + sc.NextFireAt.In(loc).Format("2006-01-02 15:04 MST") + ")"
	}
	return s
}

func inputCell(in *string) string {
	if in == nil {
		return "-"
	}
	const max = 40
	r := []rune(*in)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return *in
}

// agentsTemplates is `agentry agents templates`: the templates listing
// (extension), with what each can run on this server.
func (a *App) agentsTemplates() *cobra.Command {
	return &cobra.Command{
		Use:   "templates",
		Short: "List the agent templates and whether this server can run them (extension)",
		Long: `List the templates of agents create --template, the triggers each supports,
and whether this server can run the workflow it makes: a template using step
types of an area not available yet (knowledge, mail) is marked unavailable.`,
		Example: "  agentry agents templates -o table",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			list, err := c.ListAgentTemplates(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(cmd, list, func(w io.Writer) error {
				rows := make([][]string, len(list))
				for i, t := range list {
					avail := "yes"
					if !t.Available {
						avail = "not yet: needs " + strings.Join(t.UnavailableStepTypes, ", ")
					}
					trigs := make([]string, len(t.Triggers))
					for j, tr := range t.Triggers {
						trigs[j] = tr.TriggerType
						if !tr.Available {
							trigs[j] += " (not yet)"
						}
					}
					rows[i] = []string{t.Name, avail, strings.Join(trigs, ", "), t.Description}
				}
				return writeTable(w, []string{"Template", "Available", "Triggers", "Description"}, rows)
			})
		},
	}
}
