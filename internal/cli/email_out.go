package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// The outbound side of `agentry email`: sending domains, recipients'
// opt-outs and following an unsubscribe link. The parent command (email.go)
// gathers each mail area's subcommands.
func init() {
	emailSubcommands = append(emailSubcommands, emailDomainsCommand, emailOptOutsCommand, unsubscribeCommand)
}

func printDomain(a *App, cmd *cobra.Command, d *client.EmailDomain) error {
	return a.print(cmd, d, func(w io.Writer) error {
		if err := writeFields(w, [][2]string{{"ID", d.ID}, {"Domain", d.Domain}, {"Kind", d.Kind}, {"Status", d.Status},
			{"Primary", strconv.FormatBool(d.IsPrimary)}, {"Regressing", strconv.FormatBool(d.Regressing)}, {"Error", deref(d.ErrorMessage)}}); err != nil {
			return err
		}
		fmt.Fprintln(w)
		rows := make([][]string, len(d.DNSRecords))
		for i, r := range d.DNSRecords {
			v := r.Value
			if r.MXPriority != nil {
				v = strconv.Itoa(*r.MXPriority) + " " + v
			}
			rows[i] = []string{r.Key, r.Type, r.Name, v, strconv.FormatBool(r.OK), deref(r.Detail)}
		}
		return writeTable(w, []string{"Record", "Type", "Name", "Value", "OK", "Detail"}, rows)
	})
}

func emailDomainsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "domains",
		Short: "The account's sending domains (a key bound to a user is needed)",
		Long: `Vanity names (<slug>.<shared domain>) and custom domains agents send from and
receive on: the DNS records to publish, verification, the primary domain, test
messages, DMARC summaries. See docs/email-domains.md.`,
	}
	list := &cobra.Command{
		Use: "list", Short: "List the domains and what the account may add", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			ds, err := c.ListEmailDomains(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(cmd, ds, func(w io.Writer) error {
				rows := make([][]string, len(ds.Domains))
				for i, d := range ds.Domains {
					rows[i] = []string{d.ID, d.Domain, d.Kind, d.Status, strconv.FormatBool(d.IsPrimary)}
				}
				return writeTable(w, []string{"ID", "Domain", "Kind", "Status", "Primary"}, rows)
			})
		},
	}
	var kind, value string
	var delegated bool
	add := &cobra.Command{
		Use: "add", Short: "Add a vanity name or a custom domain and print the records to publish", Args: exactArgs(0),
		Example: `  agentry email domains add --kind custom --value agent.example.com
  agentry email domains add --kind vanity --value acme`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kind == "" || value == "" {
				return usageErrorf("--kind and --value are required")
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.AddEmailDomain(cmd.Context(), kind, value, delegated)
			if err != nil {
				return err
			}
			return printDomain(a, cmd, d)
		},
	}
	add.Flags().StringVar(&kind, "kind", "", "vanity or custom")
	add.Flags().StringVar(&value, "value", "", "the vanity slug, or the custom domain")
	add.Flags().BoolVar(&delegated, "delegated", false, "custom only: the server publishes the records (needs its RFC 2136 DNS server)")
	action := func(use, short string, call func(c *client.Client, cmd *cobra.Command, id string) (*client.EmailDomain, error)) *cobra.Command {
		return &cobra.Command{Use: use + " ID", Short: short, Args: exactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := a.Client()
				if err != nil {
					return err
				}
				d, err := call(c, cmd, args[0])
				if err != nil {
					return err
				}
				return printDomain(a, cmd, d)
			}}
	}
	verify := action("verify", "Check the domain's DNS records now", func(c *client.Client, cmd *cobra.Command, id string) (*client.EmailDomain, error) {
		return c.VerifyEmailDomain(cmd.Context(), id)
	})
	primary := action("primary", "Send and receive on this verified domain", func(c *client.Client, cmd *cobra.Command, id string) (*client.EmailDomain, error) {
		return c.SetPrimaryEmailDomain(cmd.Context(), id)
	})
	shared := &cobra.Command{Use: "use-shared", Short: "Go back to the shared domain (the domains stay)", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.UseSharedEmailDomain(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "agents now send from the shared domain")
			return nil
		}}
	test := &cobra.Command{Use: "test-email ID", Short: "Send a test message from the domain to the account owner", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.SendTestEmail(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "test message queued for the account owner")
			return nil
		}}
	var days, top int
	dmarc := &cobra.Command{Use: "dmarc ID", Short: "Summarize the domain's DMARC aggregate reports", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := c.EmailDomainDMARC(cmd.Context(), args[0], days, top)
			if err != nil {
				return err
			}
			return a.print(cmd, s, func(w io.Writer) error {
				rate := "n/a"
				if s.PassRate != nil {
					rate = strconv.FormatFloat(*s.PassRate*100, 'f', 1, 64) + "%"
				}
				if err := writeFields(w, [][2]string{{"Days", strconv.Itoa(s.WindowDays)}, {"Reports", strconv.FormatInt(s.ReportCount, 10)},
					{"Messages", strconv.FormatInt(s.TotalMessages, 10)}, {"Pass rate", rate}}); err != nil {
					return err
				}
				rows := [][]string{}
				for _, f := range s.TopFailingSources {
					rows = append(rows, []string{f.SourceIP, strconv.FormatInt(f.FailedCount, 10), deref(f.HeaderFrom)})
				}
				fmt.Fprintln(w)
				return writeTable(w, []string{"Failing source", "Messages", "Header from"}, rows)
			})
		}}
	dmarc.Flags().IntVar(&days, "days", 0, "window in days (default 30, at most 365)")
	dmarc.Flags().IntVar(&top, "top", 0, "failing sources shown (default 10, at most 100)")
	remove := &cobra.Command{Use: "remove ID", Short: "Remove a domain", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			note, err := c.RemoveEmailDomain(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "removed")
			if note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), note)
			}
			return nil
		}}
	cmd.AddCommand(list, add, verify, primary, shared, test, dmarc, remove)
	return cmd
}

func emailOptOutsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "optouts", Short: "Recipients who opted out of the account's agent mail"}
	var agent string
	list := &cobra.Command{Use: "list", Short: "List opt-outs, newest first", Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			out := []client.EmailOptOut{}
			for o, err := range c.EmailOptOuts(cmd.Context(), agent) {
				if err != nil {
					return err
				}
				out = append(out, o)
			}
			return a.print(cmd, out, func(w io.Writer) error {
				rows := make([][]string, len(out))
				for i, o := range out {
					scope := "all agents"
					if o.AgentID != nil {
						scope = deref(o.AgentName) + " (" + *o.AgentID + ")"
					}
					rows[i] = []string{o.ID, o.RecipientEmail, scope, o.CreatedAt}
				}
				return writeTable(w, []string{"ID", "Recipient", "Agent", "Created"}, rows)
			})
		}}
	list.Flags().StringVar(&agent, "agent", "", "only this agent's opt-outs (and the account-wide ones)")
	revoke := &cobra.Command{Use: "revoke ID", Short: "Opt the recipient back in", Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.RevokeEmailOptOut(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "revoked")
			return nil
		}}
	cmd.AddCommand(list, revoke)
	return cmd
}

func unsubscribeCommand(a *App) *cobra.Command {
	var all bool
	cmd := &cobra.Command{Use: "unsubscribe TOKEN", Short: "Follow an unsubscribe link's token (an Agentry extension; no credentials needed)",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.Unsubscribe(cmd.Context(), args[0], all); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "unsubscribed")
			return nil
		}}
	cmd.Flags().BoolVar(&all, "all", false, "from every agent of the sending account")
	return cmd
}
