package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() {
	addAPICommand(keysCommand)
	addAPICommand(membersCommand)
	addAPICommand(creditsCommand)
}

func keyStrOr(s *string, or string) string {
	if s == nil {
		return or
	}
	return *s
}

// keysCommand is `agentry keys list|create|revoke` (an extension): the
// account's own API keys, as its owners, admins and members manage them.
func keysCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "List, create and revoke the account's API keys (an Agentry extension)",
		Long: `Owners and admins see and revoke every key of the account; a member sees and
revokes only their own. A new key belongs to your user, with a role no
stronger than yours; its secret is printed once and cannot be read again.
(Operators issue keys for any account with agentry admin keys.)`,
	}
	row := func(k client.APIKey) []string {
		state := "active"
		if k.RevokedAt != nil {
			state = "revoked"
		}
		return []string{k.ID, k.Name, k.Prefix, k.Role, state, k.CreatedAt, keyStrOr(k.LastUsedAt, "never")}
	}
	header := []string{"ID", "Name", "Prefix", "Role", "State", "Created", "Last used"}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the keys you may see (never their secrets)",
		Example: `  agentry keys list -o table`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListAPIKeys(cmd.Context(), 1, 200)
			if err != nil {
				return err
			}
			return a.print(cmd, p.Items, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, k := range p.Items {
					rows[i] = row(k)
				}
				return writeTable(w, header, rows)
			})
		},
	}
	var name, role string
	create := &cobra.Command{
		Use:     "create --name NAME [--role member|admin|owner]",
		Short:   "Create a key; its secret is printed once",
		Example: `  agentry keys create --name ci --role member`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			k, err := c.CreateAPIKey(cmd.Context(), name, role)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "the key is shown this once: store it now")
			return a.print(cmd, k, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"ID", k.ID}, {"Name", k.Name}, {"Role", k.Role}, {"Key", k.Key}})
			})
		},
	}
	create.Flags().StringVar(&name, "name", "api key", "a name to recognise the key by")
	create.Flags().StringVar(&role, "role", "member", "the role the key acts with: member, admin or owner (no stronger than yours)")
	revoke := &cobra.Command{
		Use:     "revoke KEY_ID",
		Short:   "Revoke a key; every server refuses it within seconds",
		Example: `  agentry keys revoke 0190…`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			k, err := c.RevokeAPIKey(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "revoked key %s\n", k.ID)
			return a.print(cmd, k, func(w io.Writer) error { return writeTable(w, header, [][]string{row(*k)}) })
		},
	}
	cmd.AddCommand(list, create, revoke)
	return cmd
}

// membersCommand is `agentry members list|set-role` (an extension).
func membersCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "members",
		Short: "List the account's members and change their roles (an Agentry extension)",
		Long: `Owners and admins change roles; only an owner makes or unmakes an owner, and
the last owner stays one. (Operators add and remove members with agentry
admin members.)`,
	}
	header := []string{"User", "Name", "Email", "Role", "Since"}
	row := func(m client.Member) []string {
		return []string{m.UserID, m.Name, keyStrOr(m.Email, ""), m.Role, m.CreatedAt}
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the members with their roles",
		Example: `  agentry members list -o table`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			p, err := c.ListMembers(cmd.Context(), 1, 200)
			if err != nil {
				return err
			}
			return a.print(cmd, p.Items, func(w io.Writer) error {
				rows := make([][]string, len(p.Items))
				for i, m := range p.Items {
					rows[i] = row(m)
				}
				return writeTable(w, header, rows)
			})
		},
	}
	setRole := &cobra.Command{
		Use:     "set-role USER_ID ROLE",
		Short:   "Change a member's role: owner, admin or member",
		Example: `  agentry members set-role 0190… admin`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			m, err := c.SetMemberRole(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return a.print(cmd, m, func(w io.Writer) error { return writeTable(w, header, [][]string{row(*m)}) })
		},
	}
	cmd.AddCommand(list, setRole)
	return cmd
}

// creditsCommand is `agentry credits show` (an extension).
func creditsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "credits",
		Short: "Show the account's credits (an Agentry extension)",
	}
	var ledger, days int
	show := &cobra.Command{
		Use:     "show",
		Short:   "Show the balance, the latest ledger entries and the credits spent per day",
		Example: `  agentry credits show --ledger 20 --days 7 -o table`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			cr, err := c.GetCredits(cmd.Context(), ledger, days)
			if err != nil {
				return err
			}
			return a.print(cmd, cr, func(w io.Writer) error {
				if err := writeFields(w, [][2]string{{"Balance", strconv.FormatFloat(cr.Balance, 'f', -1, 64)}}); err != nil {
					return err
				}
				rows := make([][]string, 0, len(cr.Daily))
				for _, d := range cr.Daily {
					rows = append(rows, []string{d.Day, strconv.FormatFloat(d.Credits, 'f', -1, 64)})
				}
				if err := writeTable(w, []string{"Day", "Spent"}, rows); err != nil {
					return err
				}
				rows = rows[:0]
				for _, e := range cr.Ledger {
					rows = append(rows, []string{e.CreatedAt, strconv.FormatFloat(e.Delta, 'f', -1, 64), strconv.FormatFloat(e.BalanceAfter, 'f', -1, 64), e.Reason})
				}
				return writeTable(w, []string{"When", "Change", "Balance after", "Reason"}, rows)
			})
		},
	}
	show.Flags().IntVar(&ledger, "ledger", 0, "how many ledger entries (0: 50)")
	show.Flags().IntVar(&days, "days", 0, "how many days of spending (0: 30)")
	cmd.AddCommand(show)
	return cmd
}
