package cli

import (
	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// governanceViolationsCommand is `agentry governance violations`: the
// recorded flags and blocks (an extension), newest first.
func (a *App) governanceViolationsCommand() *cobra.Command {
	var o client.GovernanceViolationListOptions
	cmd := a.evalgovCall("violations", "List the flags and blocks policies recorded (an Agentry extension)",
		`  agentry governance violations --action block`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
			p, err := c.ListGovernanceViolations(cmd.Context(), o)
			if err != nil {
				return nil, err
			}
			return p.Items, nil
		})
	cmd.Flags().StringVar(&o.Action, "action", "", "only flag or only block")
	cmd.Flags().StringVar(&o.AgentID, "agent", "", "only this agent's runs")
	cmd.Flags().StringVar(&o.RunID, "run", "", "only this run")
	cmd.Flags().StringVar(&o.PolicyID, "policy", "", "only this policy's")
	cmd.Flags().IntVar(&o.Page, "page", 1, "page number")
	cmd.Flags().IntVar(&o.Limit, "limit", 20, "page size (up to 100)")
	return cmd
}
