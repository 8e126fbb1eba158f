package cli

import (
	"fmt"
	"io"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(meCommand) }

// meCommand is `agentry me` (GET /me).
func meCommand(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "me",
		Short: "Show your account and the organizations you belong to",
		Long: `Show the account your credentials act in and the organizations you belong
to. Use an organization's id with --account-id to act in it.`,
		Example: `  agentry me
  agentry me -o json | jq -r .account_id
  agentry --profile work me`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			me, err := c.Me(cmd.Context())
			if err != nil {
				return err
			}
			return a.print(cmd, me, func(w io.Writer) error { return meTable(w, me) })
		},
	}
}

func meTable(w io.Writer, me *client.MeResponse) error {
	if err := writeFields(w, [][2]string{{"Account", me.AccountID}}); err != nil {
		return err
	}
	if len(me.Organizations) == 0 {
		_, err := fmt.Fprintln(w, "Organizations: none")
		return err
	}
	fmt.Fprintln(w)
	rows := make([][]string, len(me.Organizations))
	for i, o := range me.Organizations {
		rows[i] = []string{o.ID, o.Name}
	}
	return writeTable(w, []string{"Organization ID", "Name"}, rows)
}
