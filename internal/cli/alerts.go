package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(alertsCommand) }

// alertsCommand is `agentry alerts …`: alerts, their configs, webhooks and
// the caller's organization preferences.
func alertsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "alerts",
		Short: "Alerts raised by alert configs: list, inspect, acknowledge, resolve, comment",
		Long: `Alerts are raised by alert configs when runs fail (run_failed,
consecutive_failures, error_rate_spike, run_burst, slow_run), credits run low,
evaluations or governance policies flag something, a model an agent uses is
retired, or a source keeps failing. See docs/alerts.md.`,
	}
	cmd.AddCommand(alertsListCommand(a), alertsGetCommand(a), alertsStatusCommand(a), alertsCommentCommand(a),
		alertsSubscribeCommand(a, true), alertsSubscribeCommand(a, false), alertConfigsCommand(a), alertPreferencesCommand(a))
	return cmd
}

func alertRows(list []client.Alert) [][]string {
	rows := make([][]string, len(list))
	for i, al := range list {
		rows[i] = []string{al.ID, al.AlertType, al.Status, al.Title, deref(al.AgentID), deref(al.CreatedAt)}
	}
	return rows
}

func alertsListCommand(a *App) *cobra.Command {
	var (
		o        client.AlertListOptions
		from, to string
		all      bool
	)
	c := &cobra.Command{
		Use:     "list",
		Short:   "List the account's alerts, newest first",
		Example: "  agentry alerts list --status triggered -o table\n  agentry alerts list --agent AGENT_ID --since 2026-11-01T00:00:00Z --all",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.TimeFrom, err = parseFlagTime("--since", from); err != nil {
				return err
			}
			if o.TimeTo, err = parseFlagTime("--until", to); err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.Alert{}
			if all {
				for al, err := range c.Alerts(cmd.Context(), o) {
					if err != nil {
						return err
					}
					items = append(items, al)
				}
			} else {
				p, err := c.ListAlerts(cmd.Context(), o)
				if err != nil {
					return err
				}
				items = p.Items
			}
			return a.print(cmd, items, func(w io.Writer) error {
				return writeTable(w, []string{"ID", "Type", "Status", "Title", "Agent", "Created"}, alertRows(items))
			})
		},
	}
	f := c.Flags()
	f.StringVar(&o.Status, "status", "", "triggered, acknowledged, resolved or dismissed")
	f.StringVar(&o.AgentID, "agent", "", "only this agent's alerts")
	f.StringVar(&o.SourceConnectionID, "source", "", "only this source connection's alerts")
	f.StringVar(&from, "since", "", "created at or after (RFC 3339)")
	f.StringVar(&to, "until", "", "created at or before (RFC 3339)")
	f.IntVar(&o.Page, "page", 1, "page number")
	f.IntVar(&o.Limit, "limit", 0, "alerts per page (1-100)")
	f.BoolVar(&all, "all", false, "fetch every page")
	return c
}

func parseFlagTime(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, usageErrorf("%s: want an RFC 3339 time such as 2026-11-01T00:00:00Z", flag)
	}
	return t, nil
}

func (a *App) printAlertDetail(cmd *cobra.Command, d *client.AlertDetail) error {
	return a.print(cmd, d, func(w io.Writer) error {
		al := d.Alert
		fields := [][2]string{{"ID", al.ID}, {"Type", al.AlertType}, {"Status", al.Status}, {"Title", al.Title},
			{"Description", deref(al.Description)}, {"Agent", deref(al.AgentID)}, {"Run", deref(al.AgentRunID)},
			{"Source", deref(al.SourceConnectionID)}, {"Subscribers", strconv.Itoa(al.SubscriberCount)},
			{"Comments", strconv.Itoa(al.CommentCount)}, {"Created", deref(al.CreatedAt)}}
		for _, h := range d.History {
			fields = append(fields, [2]string{"History", fmt.Sprintf("%s → %s %s %s", deref(h.PreviousStatus), h.NewStatus, deref(h.CreatedAt), deref(h.Note))})
		}
		for _, c := range d.Comments {
			fields = append(fields, [2]string{"Comment", fmt.Sprintf("%s: %s", orString(deref(c.UserName), c.UserID), c.Body)})
		}
		return writeFields(w, fields)
	})
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func alertsGetCommand(a *App) *cobra.Command {
	return &cobra.Command{
		Use:     "get ALERT_ID",
		Short:   "Show an alert with its history, comments and subscribers",
		Example: "  agentry alerts get 0193…",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.GetAlert(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printAlertDetail(cmd, d)
		},
	}
}

func alertsStatusCommand(a *App) *cobra.Command {
	var note string
	c := &cobra.Command{
		Use:     "status ALERT_ID STATUS",
		Short:   "Acknowledge, resolve, dismiss or re-trigger an alert",
		Example: "  agentry alerts status 0193… acknowledged --note \"looking into it\"\n  agentry alerts status 0193… resolved",
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.SetAlertStatus(cmd.Context(), args[0], args[1], note)
			if err != nil {
				return err
			}
			return a.printAlertDetail(cmd, d)
		},
	}
	c.Flags().StringVar(&note, "note", "", "why, recorded in the alert's history")
	return c
}

func alertsCommentCommand(a *App) *cobra.Command {
	return &cobra.Command{
		Use:     "comment ALERT_ID TEXT",
		Short:   "Comment on an alert (its subscribers are told)",
		Example: `  agentry alerts comment 0193… "The endpoint is back."`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.CommentOnAlert(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return a.printAlertDetail(cmd, d)
		},
	}
}

func alertsSubscribeCommand(a *App, on bool) *cobra.Command {
	use, short := "subscribe", "Receive an alert's notifications"
	if !on {
		use, short = "unsubscribe", "Stop receiving an alert's notifications"
	}
	return &cobra.Command{
		Use:   use + " ALERT_ID",
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			call := c.SubscribeToAlert
			if !on {
				call = c.UnsubscribeFromAlert
			}
			d, err := call(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printAlertDetail(cmd, d)
		},
	}
}

func (a *App) printAlertConfig(cmd *cobra.Command, c *client.AlertConfig) error {
	return a.print(cmd, c, func(w io.Writer) error {
		th, _ := json.Marshal(c.Threshold)
		return writeFields(w, [][2]string{{"ID", c.ID}, {"Type", c.AlertType}, {"Agent", deref(c.AgentID)},
			{"Source", deref(c.SourceConnectionID)}, {"Enabled", strconv.FormatBool(c.Enabled)}, {"Threshold", string(th)},
			{"Cooldown (min)", strconv.Itoa(c.CooldownMinutes)}, {"Distribution", c.DistributionType},
			{"Last alerted", deref(c.LastAlertedAt)}})
	})
}

// configFlags are the fields create and update share.
type configFlags struct {
	threshold, distribution string
	recipients              []string
	cooldown                int
	enabled, disabled       bool
}

func (f *configFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.threshold, "threshold", "", `threshold as a JSON object, e.g. '{"count":3}'`)
	c.Flags().StringVar(&f.distribution, "distribution", "", "owner, owner_admins or selected_members")
	c.Flags().StringSliceVar(&f.recipients, "recipient", nil, "user id for selected_members (repeatable)")
	c.Flags().IntVar(&f.cooldown, "cooldown", -1, "minutes before the config may alert again")
	c.Flags().BoolVar(&f.enabled, "enable", false, "enable the config")
	c.Flags().BoolVar(&f.disabled, "disable", false, "disable the config")
}

func (f *configFlags) thresholdMap() (map[string]any, error) {
	if f.threshold == "" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(f.threshold), &m); err != nil {
		return nil, usageErrorf("--threshold: want a JSON object: %v", err)
	}
	return m, nil
}

func (f *configFlags) enabledPtr() (*bool, error) {
	switch {
	case f.enabled && f.disabled:
		return nil, usageErrorf("--enable and --disable contradict each other")
	case f.enabled:
		v := true
		return &v, nil
	case f.disabled:
		v := false
		return &v, nil
	}
	return nil, nil
}

func (f *configFlags) cooldownPtr() *int {
	if f.cooldown < 0 {
		return nil
	}
	return &f.cooldown
}

func alertConfigsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "configs", Short: "Manage alert configs: what raises alerts, who is told, webhooks"}
	var lo client.AlertConfigListOptions
	list := &cobra.Command{
		Use:     "list",
		Short:   "List alert configs (an agent's, a source's, or the account-level ones)",
		Example: "  agentry alerts configs list --agent AGENT_ID\n  agentry alerts configs list --scope source",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.AlertConfig{}
			for x, err := range c.AlertConfigs(cmd.Context(), lo) {
				if err != nil {
					return err
				}
				items = append(items, x)
			}
			return a.print(cmd, items, func(w io.Writer) error {
				rows := make([][]string, len(items))
				for i, x := range items {
					rows[i] = []string{x.ID, x.AlertType, deref(x.AgentID), deref(x.SourceConnectionID), strconv.FormatBool(x.Enabled), x.DistributionType}
				}
				return writeTable(w, []string{"ID", "Type", "Agent", "Source", "Enabled", "Distribution"}, rows)
			})
		},
	}
	list.Flags().StringVar(&lo.AgentID, "agent", "", "an agent's configs")
	list.Flags().StringVar(&lo.SourceConnectionID, "source", "", "a source connection's configs")
	list.Flags().StringVar(&lo.Scope, "scope", "", "'source' for the account-level source configs")

	var (
		cf         configFlags
		agent, src string
	)
	create := &cobra.Command{
		Use:   "create TYPE",
		Short: "Create an alert config",
		Example: `  agentry alerts configs create consecutive_failures --agent AGENT_ID --threshold '{"count":3}' --cooldown 30
  agentry alerts configs create credits_low_threshold --threshold '{"credits":50}'`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			th, err := cf.thresholdMap()
			if err != nil {
				return err
			}
			en, err := cf.enabledPtr()
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			out, err := c.CreateAlertConfig(cmd.Context(), client.CreateAlertConfigRequest{AlertType: args[0], AgentID: agent,
				SourceConnectionID: src, Enabled: en, Threshold: th, CooldownMinutes: cf.cooldownPtr(),
				DistributionType: cf.distribution, RecipientUserIDs: cf.recipients})
			if err != nil {
				return err
			}
			return a.printAlertConfig(cmd, out)
		},
	}
	cf.register(create)
	create.Flags().StringVar(&agent, "agent", "", "the agent it watches")
	create.Flags().StringVar(&src, "source", "", "the source connection it watches")

	get := &cobra.Command{
		Use:   "get CONFIG_ID",
		Short: "Show an alert config",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			out, err := c.GetAlertConfig(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printAlertConfig(cmd, out)
		},
	}
	var uf configFlags
	update := &cobra.Command{
		Use:     "update CONFIG_ID",
		Short:   "Change an alert config (only the flags given)",
		Example: "  agentry alerts configs update CONFIG_ID --disable\n  agentry alerts configs update CONFIG_ID --cooldown 0",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			th, err := uf.thresholdMap()
			if err != nil {
				return err
			}
			en, err := uf.enabledPtr()
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			out, err := c.UpdateAlertConfig(cmd.Context(), args[0], client.UpdateAlertConfigRequest{Enabled: en, Threshold: th,
				CooldownMinutes: uf.cooldownPtr(), DistributionType: uf.distribution, RecipientUserIDs: uf.recipients})
			if err != nil {
				return err
			}
			return a.printAlertConfig(cmd, out)
		},
	}
	uf.register(update)
	del := &cobra.Command{
		Use:   "delete CONFIG_ID",
		Short: "Delete an alert config (its alerts stay)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteAlertConfig(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "deleted alert config %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, create, get, update, del, alertWebhookCommand(a), alertDeliveriesCommand(a))
	return cmd
}

func alertWebhookCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "webhook", Short: "Send a config's alerts to a signed webhook (an Agentry extension)"}
	print := func(cmd *cobra.Command, h *client.AlertWebhook) error {
		return a.print(cmd, h, func(w io.Writer) error {
			return writeFields(w, [][2]string{{"Config", h.AlertConfigID}, {"URL", deref(h.URL)}, {"Secret", deref(h.SecretName)}})
		})
	}
	set := &cobra.Command{
		Use:     "set CONFIG_ID URL SECRET_NAME",
		Short:   "Post the config's alert events to URL, signed with the account secret SECRET_NAME",
		Example: "  agentry secrets set ALERT_HOOK_KEY\n  agentry alerts configs webhook set CONFIG_ID https://ops.example.com/alerts ALERT_HOOK_KEY",
		Args:    exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			h, err := c.SetAlertWebhook(cmd.Context(), args[0], args[1], args[2])
			if err != nil {
				return err
			}
			return print(cmd, h)
		},
	}
	get := &cobra.Command{
		Use:   "get CONFIG_ID",
		Short: "Show the config's webhook",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			h, err := c.GetAlertWebhook(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return print(cmd, h)
		},
	}
	del := &cobra.Command{
		Use:   "delete CONFIG_ID",
		Short: "Stop posting the config's alerts",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteAlertWebhook(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "removed the webhook of alert config %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, get, del)
	return cmd
}

func alertDeliveriesCommand(a *App) *cobra.Command {
	var page, limit int
	c := &cobra.Command{
		Use:     "deliveries CONFIG_ID",
		Short:   "Show the delivery log of a config's alerts (an Agentry extension)",
		Example: "  agentry alerts configs deliveries CONFIG_ID -o table",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListAlertDeliveries(cmd.Context(), args[0], page, limit)
			if err != nil {
				return err
			}
			return a.print(cmd, p.Items, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, d := range p.Items {
					rows[i] = []string{d.CreatedAt, d.Event, d.Channel, d.Target, d.Status, strconv.Itoa(d.Attempts), deref(d.Error)}
				}
				return writeTable(w, []string{"When", "Event", "Channel", "Target", "Status", "Attempts", "Error"}, rows)
			})
		},
	}
	c.Flags().IntVar(&page, "page", 1, "page number")
	c.Flags().IntVar(&limit, "limit", 0, "entries per page (1-100)")
	return c
}

func alertPreferencesCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "preferences", Short: "Your alert delivery preferences in the organizations you own or administer"}
	var (
		org      string
		defaults bool
	)
	list := &cobra.Command{
		Use:     "list",
		Short:   "List your opt-outs (or, with --defaults, every type's effective state)",
		Example: "  agentry alerts preferences list --defaults --org ORG_ID -o table",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			prefs, err := c.ListAlertPreferences(cmd.Context(), org, defaults)
			if err != nil {
				return err
			}
			return a.print(cmd, prefs, func(w io.Writer) error {
				rows := make([][]string, len(prefs))
				for i, p := range prefs {
					rows[i] = []string{p.OrganizationID, p.AlertType, strconv.FormatBool(p.Subscribed), strconv.FormatBool(p.IsOverride)}
				}
				return writeTable(w, []string{"Organization", "Type", "Subscribed", "Override"}, rows)
			})
		},
	}
	list.Flags().StringVar(&org, "org", "", "only this organization")
	list.Flags().BoolVar(&defaults, "defaults", false, "include the default (subscribed) entries")
	set := &cobra.Command{
		Use:     "set ORG_ID ALERT_TYPE on|off",
		Short:   "Opt out of (off) or back into (on) an alert type in an organization",
		Example: "  agentry alerts preferences set ORG_ID run_burst off",
		Args:    exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			var on bool
			switch args[2] {
			case "on":
				on = true
			case "off":
			default:
				return usageErrorf("the third argument is on or off, not %q", args[2])
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.SetAlertPreference(cmd.Context(), args[0], args[1], on)
			if err != nil {
				return err
			}
			return a.print(cmd, p, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Organization", p.OrganizationID}, {"Type", p.AlertType},
					{"Subscribed", strconv.FormatBool(p.Subscribed)}})
			})
		},
	}
	cmd.AddCommand(list, set)
	return cmd
}
