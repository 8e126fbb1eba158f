package cli

import (
	"fmt"
	"io"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// modelsDefault is `agentry models default get|set|clear`: the model that
// answers the account's prompt steps that name none (an extension).
func (a *App) modelsDefault() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "default",
		Short: "Show or set the model that answers prompt steps naming none",
		Long: `Prompt steps that name no model (every template's) are answered by the
account's default model when it has one, else by the server's: --default-model
(SERVICE_DEFAULT_MODEL), else the configured provider's default, else the
offline model. Setting the account's default needs the owner or admin role.
See docs/models.md.`,
	}
	show := func(cmd *cobra.Command, d *client.DefaultModel) error {
		return a.print(cmd, d, func(w io.Writer) error {
			own := "-"
			if d.AccountModelID != nil {
				own = *d.AccountModelID
			}
			if err := writeTable(w, []string{"Model", "Source", "Account", "Server", "Server reason"},
				[][]string{{d.ModelID, d.Source, own, d.ServerModelID, d.ServerDefaultReason}}); err != nil {
				return err
			}
			_, err := fmt.Fprintf(w, "\n%s\n", defaultModelNote(d))
			return err
		})
	}
	get := &cobra.Command{
		Use:     "get",
		Short:   "Show the account's default model and where it comes from",
		Example: "  agentry models default get -o table",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.GetDefaultModel(cmd.Context())
			if err != nil {
				return err
			}
			return show(cmd, d)
		},
	}
	set := &cobra.Command{
		Use:     "set MODEL",
		Short:   "Set the account's default model (owner or admin)",
		Example: "  agentry models default set openai_gpt_4_1\n  agentry models default set ollama/llama3.2:latest",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.SetDefaultModel(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return show(cmd, d)
		},
	}
	clr := &cobra.Command{
		Use:     "clear",
		Short:   "Clear the account's default model, so the server's applies",
		Example: "  agentry models default clear",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			d, err := c.SetDefaultModel(cmd.Context(), "")
			if err != nil {
				return err
			}
			return show(cmd, d)
		},
	}
	cmd.AddCommand(get, set, clr)
	return cmd
}

// defaultModelNote says in a sentence which model answers steps that name
// none, why, and how to change it.
func defaultModelNote(d *client.DefaultModel) string {
	why := "the account's default"
	if d.Source != "account" {
		why = "the server's default: " + d.ServerDefaultReason
	}
	note := fmt.Sprintf("Steps that name no model are answered by %s (%s).", d.ModelID, why)
	if d.ModelID == "agentry_offline" {
		note += " The offline model is a stand-in, not a language model: configure a provider (OPENAI_API_KEY, ANTHROPIC_API_KEY, a providers file, or a local Ollama)."
	}
	return note + " Change it with `agentry models default set MODEL` (this account) or --default-model (the server)."
}
