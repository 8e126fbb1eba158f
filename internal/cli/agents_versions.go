package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// agentsVersions is `agentry agents versions …`: the saved versions of an
// agent's workflow (an Agentry extension of the API).
func (a *App) agentsVersions() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List, show, compare and restore an agent's workflow versions",
		Long: `Every save of a changed workflow is a version, named by its change id.
List them newest first, show one, compare two step by step, or restore an
old one (saved again as the newest; history is never rewritten). These
commands use Agentry's versions extension of the API. See docs/versions.md.`,
	}
	cmd.AddCommand(a.agentsVersionsList(), a.agentsVersionsGet(), a.agentsVersionsDiff(), a.agentsVersionsRestore())
	return cmd
}

func (a *App) agentsVersionsList() *cobra.Command {
	var (
		o   client.VersionListOptions
		all bool
	)
	cmd := a.agentCmd("list AGENT_ID", "List the workflow's versions, newest first",
		`  agentry agents versions list 0190… -o table`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			items := []client.AgentVersion{}
			if all {
				for v, err := range c.AgentVersions(cmd.Context(), args[0]) {
					if err != nil {
						return nil, nil, err
					}
					items = append(items, v)
				}
			} else {
				p, err := c.ListAgentVersions(cmd.Context(), args[0], o)
				if err != nil {
					return nil, nil, err
				}
				items = append(items, p.Items...)
				if p.HasNext {
					fmt.Fprintf(cmd.ErrOrStderr(), "page %d of %d (%d versions): --page %d for more, or --all\n", p.Page, p.Pages, p.Total, p.Page+1)
				}
			}
			return items, func(w io.Writer) error { return versionsTable(w, items) }, nil
		})
	f := cmd.Flags()
	f.IntVar(&o.Page, "page", 1, "page to show")
	f.IntVar(&o.Limit, "limit", 20, "versions per page (at most 100)")
	f.BoolVar(&all, "all", false, "list every version, fetching page after page")
	return cmd
}

func (a *App) agentsVersionsGet() *cobra.Command {
	return a.agentCmd("get AGENT_ID CHANGE_ID", "Show one version with its definition",
		`  agentry agents versions get 0190… 0190… > old.json`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			v, err := c.GetAgentVersion(cmd.Context(), args[0], args[1])
			if err != nil {
				return nil, nil, err
			}
			return v, func(w io.Writer) error {
				if err := writeFields(w, [][2]string{{"Change ID", v.ChangeID}, {"Saved at", v.SavedAt}, {"Saved by", orNone(strOr(v.SavedBy))},
					{"Current", fmt.Sprint(v.Current)}, {"Summary", v.Summary}}); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "\n%s\n", v.Definition)
				return err
			}, nil
		})
}

func (a *App) agentsVersionsDiff() *cobra.Command {
	var against string
	cmd := a.agentCmd("diff AGENT_ID CHANGE_ID", "Compare a version with another (by default the one before it)",
		`  agentry agents versions diff 0190… NEW_CHANGE_ID --against OLD_CHANGE_ID -o table`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			d, err := c.DiffAgentVersions(cmd.Context(), args[0], args[1], against)
			if err != nil {
				return nil, nil, err
			}
			return d, func(w io.Writer) error { return diffTable(w, d) }, nil
		})
	cmd.Flags().StringVar(&against, "against", "", "the change id to compare with (default: the version before)")
	return cmd
}

func (a *App) agentsVersionsRestore() *cobra.Command {
	var expected string
	cmd := a.agentCmd("restore AGENT_ID CHANGE_ID", "Save an old version again as the newest",
		`  agentry agents versions restore 0190… OLD_CHANGE_ID
  agentry agents versions restore 0190… OLD_CHANGE_ID --expected-change-id CURRENT_CHANGE_ID`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			if expected == "" {
				// Lock against the workflow as it is now: a save landing
				// between this read and the restore is still refused.
				cur, err := c.GetAgentDefinition(cmd.Context(), args[0])
				if err != nil {
					return nil, nil, err
				}
				expected = cur.ChangeID
			}
			v, err := c.RestoreAgentVersion(cmd.Context(), args[0], args[1], expected)
			if err != nil {
				return nil, nil, err
			}
			return v, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Change ID", v.ChangeID}, {"Restored", args[1]}, {"Summary", v.Summary}})
			}, nil
		})
	cmd.Long = `Save an old version of the workflow as the newest: a new version with a new
change id. It goes through the same validation as any save (exit status 5
when the old workflow no longer validates, e.g. it names a deleted knowledge
base) and its optimistic locking: --expected-change-id is the current change
id (read now when left out); if the workflow changed since, the command exits
with status 6.`
	cmd.Flags().StringVar(&expected, "expected-change-id", "", "the current change id the restore replaces (default: read it now)")
	return cmd
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func versionsTable(w io.Writer, vs []client.AgentVersion) error {
	rows := make([][]string, len(vs))
	for i, v := range vs {
		cur := ""
		if v.Current {
			cur = "*"
		}
		rows[i] = []string{cur, v.ChangeID, v.SavedAt, orNone(strOr(v.SavedBy)), runsCell(v.Summary, 60)}
	}
	return writeTable(w, []string{"", "Change ID", "Saved at", "Saved by", "Summary"}, rows)
}

func diffTable(w io.Writer, d *client.AgentVersionDiff) error {
	rows := [][]string{}
	for _, s := range d.Diff.Added {
		rows = append(rows, []string{"+", s.StepKey, s.StepType, ""})
	}
	for _, s := range d.Diff.Removed {
		rows = append(rows, []string{"-", s.StepKey, s.StepType, ""})
	}
	for _, s := range d.Diff.Changed {
		for _, f := range s.Fields {
			rows = append(rows, []string{"~", s.StepKey, f.Field, runsCell(string(f.Before), 40) + " → " + runsCell(string(f.After), 40)})
		}
	}
	for _, f := range d.Diff.Workflow {
		rows = append(rows, []string{"~", "(workflow)", f.Field, runsCell(string(f.Before), 40) + " → " + runsCell(string(f.After), 40)})
	}
	if len(rows) == 0 {
		_, err := io.WriteString(w, "no changes\n")
		return err
	}
	against := "(empty workflow)"
	if d.Against != nil {
		against = *d.Against
	}
	if _, err := fmt.Fprintf(w, "%s → %s: %s\n\n", against, d.ChangeID, strings.TrimSpace(d.Summary)); err != nil {
		return err
	}
	return writeTable(w, []string{"", "Step", "Field", "Before → after"}, rows)
}
