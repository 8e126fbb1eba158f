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

func init() { addAPICommand(modelsCommand) }

// modelsCommand is `agentry models …`: the model catalog, recommendations,
// generation tiers and lifecycle alerts.
func modelsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "Browse the model catalog and model lifecycle alerts",
		Long: `The model catalog: every model agents can call, with capabilities, prices
in credits and lifecycle dates; replacement recommendations; the media
generation tiers; and the alerts raised when a model your agents use is
deprecated or retiring. See docs/models.md.`,
	}
	alerts := &cobra.Command{Use: "alerts", Short: "List and dismiss model lifecycle alerts"}
	alerts.AddCommand(a.modelsAlertsList(), a.modelsAlertsCount(), a.modelsAlertsRead(), a.modelsAlertsReadAll())
	cmd.AddCommand(a.modelsList(), a.modelsGet(), a.modelsRecommend(), a.modelsTiers(), alerts, a.modelsDefault())
	return cmd
}

// triBool reads a boolean flag that filters only when given.
func mdTriBool(cmd *cobra.Command, name string, v bool) *bool {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func (a *App) modelsList() *cobra.Command {
	var (
		f                 client.ModelFilter
		toolUse, thinking bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the enabled models, grouped by provider",
		Long: `List the enabled models grouped by provider. --tool-use and --thinking
filter only when given (--tool-use=false lists models without tool use).
JSON output is the array of provider groups.`,
		Example: `  agentry models list -o table
  agentry models list --provider anthropic --thinking
  agentry models list --input-media image/png
  agentry models list --output-media image   # image generators`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.SupportsToolUse, f.SupportsThinking = mdTriBool(cmd, "tool-use", toolUse), mdTriBool(cmd, "thinking", thinking)
			c, err := a.Client()
			if err != nil {
				return err
			}
			groups, err := c.ListModels(cmd.Context(), f)
			if err != nil {
				return err
			}
			return a.print(cmd, groups, func(w io.Writer) error {
				if err := modelsTable(w, groups); err != nil {
					return err
				}
				// Which model answers steps that name none, and how to
				// change it: a newcomer must not take the offline stand-in
				// for a language model.
				d, err := c.GetDefaultModel(cmd.Context())
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(w, "\n%s\n", defaultModelNote(d))
				return err
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Provider, "provider", "", "only this provider's models (openai, anthropic, google, mistral, meta, agentry)")
	fl.BoolVar(&toolUse, "tool-use", false, "only models with (or, =false, without) tool use")
	fl.BoolVar(&thinking, "thinking", false, "only models with (or, =false, without) extended thinking")
	fl.StringVar(&f.SupportsInputMedia, "input-media", "", "only models accepting this input: image, audio, video, pdf or a MIME type")
	fl.StringVar(&f.SupportsOutputMedia, "output-media", "", "only models producing this output: image, audio, video or a MIME type")
	return cmd
}

func modelsTable(w io.Writer, groups []client.ProviderGroup) error {
	var rows [][]string
	for _, g := range groups {
		for _, m := range g.Models {
			rows = append(rows, []string{m.ID, m.Provider, m.Name, strconv.Itoa(m.MaxContextTokens),
				mdPrice(m.InputCredits), mdPrice(m.OutputCredits), mdCapabilities(m.SupportsToolUse, m.SupportsThinking, m.SupportsStructuredOutput),
				mdLifecycle(m.DeprecatedAt, m.SunsetAt, time.Now())})
		}
	}
	return writeTable(w, []string{"ID", "Provider", "Name", "Context", "In/1k", "Out/1k", "Capabilities", "Lifecycle"}, rows)
}

func mdPrice(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func mdCapabilities(tools, thinking, structured bool) string {
	var out []string
	for _, c := range []struct {
		on   bool
		name string
	}{{tools, "tools"}, {thinking, "thinking"}, {structured, "json"}} {
		if c.on {
			out = append(out, c.name)
		}
	}
	return orNone(strings.Join(out, ","))
}

// mdLifecycle says where a model is in its life today: "retired DATE" once
// its sunset date has passed, "sunset DATE" while the date is ahead.
func mdLifecycle(deprecated, sunset *string, now time.Time) string {
	switch {
	case sunset != nil && mdDay(*sunset) <= now.UTC().Format(time.DateOnly):
		return "retired " + mdDay(*sunset)
	case sunset != nil:
		return "sunset " + mdDay(*sunset)
	case deprecated != nil:
		return "deprecated " + mdDay(*deprecated)
	}
	return "active"
}

// day shortens an RFC 3339 time to its date.
func mdDay(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

func mdDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (a *App) modelsGet() *cobra.Command {
	return &cobra.Command{
		Use:     "get MODEL_ID",
		Short:   "Show a model's details",
		Long:    `Show one model by catalog id (openai_gpt_4_1) or provider name (gpt-4.1).`,
		Example: "  agentry models get anthropic_claude_sonnet_4_6 -o table\n  agentry models get gpt-4o | jq .sunset_at",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			m, err := c.GetModel(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(cmd, m, func(w io.Writer) error {
				// last_used only says whether this is the account's most
				// recent model; the usage extension says when.
				lastUsed := "unknown"
				if u, err := c.GetModelUsage(cmd.Context(), m.ID); err == nil {
					lastUsed = "never"
					if u.LastUsedAt != nil {
						lastUsed = u.LastUsedAt.UTC().Format(time.DateOnly)
					}
				}
				return writeFields(w, [][2]string{{"ID", m.ID}, {"Name", m.Name}, {"Provider", m.Provider},
					{"Description", m.Description}, {"Context tokens", strconv.Itoa(m.MaxContextTokens)},
					{"Output tokens", strconv.Itoa(m.MaxOutputTokens)}, {"Input credits/1k", mdPrice(m.InputCredits)},
					{"Output credits/1k", mdPrice(m.OutputCredits)},
					{"Capabilities", mdCapabilities(m.SupportsToolUse, m.SupportsThinking, m.SupportsStructuredOutput)},
					{"Input media", orNone(strings.Join(m.SupportedInputMedia, ", "))},
					{"Enabled", strconv.FormatBool(m.Enabled)},
					{"Lifecycle", mdLifecycle(m.DeprecatedAt, m.SunsetAt, time.Now())}, {"Successor", orNone(mdDeref(m.SuccessorModelID))},
					{"Last used", lastUsed}})
			})
		},
	}
}

func (a *App) modelsRecommend() *cobra.Command {
	var req client.ModelRequirements
	cmd := &cobra.Command{
		Use:   "recommend MODEL_ID",
		Short: "Suggest replacements for a model",
		Long: `Suggest replacements for a model: its designated successor, newer models of
its family, other models of its provider and alternatives from other
providers (closest in price first), all meeting the requirements given.`,
		Example: `  agentry models recommend openai_gpt_4o -o table
  agentry models recommend anthropic_claude_sonnet_4_5 --tool-use --min-context 200000`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			r, err := c.Recommendations(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return a.print(cmd, r, func(w io.Writer) error {
				var rows [][]string
				add := func(list ...client.ModelRecommendation) {
					for _, x := range list {
						rows = append(rows, []string{x.RecommendationType, x.ID, x.Provider, x.Reason})
					}
				}
				if r.Successor != nil {
					add(*r.Successor)
				}
				add(r.Upgrades...)
				add(r.SameProvider...)
				add(r.Alternatives...)
				fmt.Fprintf(w, "Replacements for %s (%s):\n", r.CurrentModelName, r.CurrentModelID)
				return writeTable(w, []string{"Type", "Model", "Provider", "Reason"}, rows)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&req.ToolUse, "tool-use", false, "only models with tool use")
	f.BoolVar(&req.StructuredOutput, "structured-output", false, "only models with structured output")
	f.BoolVar(&req.Thinking, "thinking", false, "only models with thinking")
	f.IntVar(&req.MinContextTokens, "min-context", 0, "only models with at least this context window (tokens)")
	f.IntVar(&req.MinOutputTokens, "min-output", 0, "only models with at least this output limit (tokens)")
	return cmd
}

func (a *App) modelsTiers() *cobra.Command {
	return &cobra.Command{
		Use:     "tiers",
		Short:   "Show the media generation tiers and what each costs",
		Example: "  agentry models tiers -o table",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			tiers, err := c.GenerationTiers(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(cmd, tiers, func(w io.Writer) error {
				rows := make([][]string, len(tiers))
				for i, t := range tiers {
					rows[i] = []string{t.Modality, t.Tier, t.ModelID, orNone(mdDeref(t.PriceLabel))}
				}
				return writeTable(w, []string{"Modality", "Tier", "Model", "Price"}, rows)
			})
		},
	}
}

func (a *App) modelsAlertsList() *cobra.Command {
	var (
		o   client.ModelAlertListOptions
		all bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List model lifecycle alerts, newest first",
		Long: `List the alerts about models your agents use: deprecations, retirements,
newer models, and the automatic upgrades and rollbacks applied. One page
(--offset, --limit) or every alert with --all. JSON output is an array.`,
		Example: `  agentry models alerts list --unread -o table
  agentry models alerts list --agent-id 0190… --all`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			items := []client.ModelAlert{}
			if all {
				for x, err := range c.ModelAlerts(cmd.Context(), o) {
					if err != nil {
						return err
					}
					items = append(items, x)
				}
			} else {
				p, err := c.ListModelAlerts(cmd.Context(), o)
				if err != nil {
					return err
				}
				items = append(items, p.Items...)
				if p.HasNext {
					fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d alerts: --offset %d for more, or --all\n", len(p.Items), p.Total, p.Offset+len(p.Items))
				}
			}
			return a.print(cmd, items, func(w io.Writer) error {
				rows := make([][]string, len(items))
				for i, x := range items {
					read := "unread"
					if x.ReadAt != nil {
						read = "read"
					}
					rows[i] = []string{x.ID, mdDay(x.CreatedAt), x.AlertType, orNone(mdDeref(x.AgentID)), read, x.Message}
				}
				return writeTable(w, []string{"ID", "Date", "Type", "Agent", "State", "Message"}, rows)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.AgentID, "agent-id", "", "only this agent's alerts")
	f.BoolVar(&o.UnreadOnly, "unread", false, "only unread alerts")
	f.IntVar(&o.Offset, "offset", 0, "alerts to skip")
	f.IntVar(&o.Limit, "limit", 50, "alerts per page (at most 100)")
	f.BoolVar(&all, "all", false, "list every alert, fetching page after page")
	return cmd
}

func (a *App) modelsAlertsCount() *cobra.Command {
	return &cobra.Command{
		Use:     "count",
		Short:   "Count unread alerts",
		Example: "  agentry models alerts count -o table",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			n, err := c.ModelAlertUnreadCount(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(cmd, map[string]int{"count": n}, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Unread", strconv.Itoa(n)}})
			})
		},
	}
}

func (a *App) modelsAlertsRead() *cobra.Command {
	return &cobra.Command{
		Use:     "read ALERT_ID...",
		Short:   "Mark alerts read",
		Example: "  agentry models alerts read 0190… 0190…",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("give at least one alert id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			for _, id := range args {
				if err := c.MarkModelAlertRead(cmd.Context(), id); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d marked read\n", len(args))
			return nil
		},
	}
}

func (a *App) modelsAlertsReadAll() *cobra.Command {
	return &cobra.Command{
		Use:     "read-all",
		Short:   "Mark every alert read",
		Example: "  agentry models alerts read-all",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.MarkAllModelAlertsRead(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "all alerts marked read")
			return nil
		},
	}
}
