package cli

import "github.com/spf13/cobra"

func init() { addAPICommand(emailCommand) }

// emailSubcommands are the `agentry email …` commands each mail area adds
// from its own file (email_out.go: domains, opt-outs, unsubscribe).
var emailSubcommands []func(*App) *cobra.Command

// emailCommand is `agentry email …`.
func emailCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "email",
		Short: "Agents' mail: sending domains, recipients' opt-outs",
	}
	for _, f := range emailSubcommands {
		cmd.AddCommand(f(a))
	}
	return cmd
}
