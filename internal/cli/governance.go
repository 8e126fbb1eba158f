package cli

import (
	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(governanceCommand) }

// governanceCommand is `agentry governance …`: the assistant, and policies
// and checks (extensions).
func governanceCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{Use: "governance", Short: "Governance policies, checks and the policy assistant",
		Long: `Policies check run input and step output for personal data, secrets, blocked
terms and patterns, or a rule in plain language, and flag or block. The
assistant turns a request into a plan you accept or decline. Changes need the
owner or admin role. See docs/governance.md.`}
	var limit, page int
	conversations := a.evalgovCall("conversations", "List recent assistant conversations", "", 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
			return c.ListGovernanceConversations(cmd.Context(), limit)
		})
	conversations.Flags().IntVar(&limit, "limit", 20, "how many (up to 100)")

	var name, desc, ptype, config, agentID string
	var enabled bool
	policyFlags := func(c *cobra.Command) *cobra.Command {
		c.Flags().StringVar(&name, "name", "", "policy name")
		c.Flags().StringVar(&desc, "description", "", "what it is for")
		c.Flags().StringVar(&ptype, "type", "", "policy type: pii, secrets, blocked_terms, regex or llm (one rule from --config)")
		c.Flags().StringVar(&config, "config", "", `config as JSON, e.g. '{"action": "block", "rules": [{"type": "pii"}]}'`)
		c.Flags().BoolVar(&enabled, "enabled", true, "whether runs are checked against it")
		return c
	}
	input := func(cmd *cobra.Command) (client.GovernancePolicyInput, error) {
		cfg, err := jsonObjectFlag("config", config)
		in := client.GovernancePolicyInput{Name: changedString(cmd, "name", name), Description: changedString(cmd, "description", desc),
			PolicyType: changedString(cmd, "type", ptype), Config: cfg, AgentID: changedString(cmd, "agent", agentID)}
		if cmd.Flags().Changed("enabled") {
			in.Enabled = &enabled
		}
		return in, err
	}
	list := a.evalgovCall("list", "List policies", "", 0, func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
		p, err := c.ListGovernancePolicies(cmd.Context(), agentID, page, limit)
		if err != nil {
			return nil, err
		}
		return p.Items, nil
	})
	list.Flags().StringVar(&agentID, "agent", "", "only this agent's policies")
	list.Flags().IntVar(&page, "page", 1, "page number")
	list.Flags().IntVar(&limit, "limit", 20, "page size (up to 100)")
	create := policyFlags(a.evalgovCall("create", "Create a policy",
		`  agentry governance policies create --name "No PII" --config '{"action": "block", "rules": [{"type": "pii"}]}'`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, error) {
			in, err := input(cmd)
			if err != nil {
				return nil, err
			}
			return c.CreateGovernancePolicy(cmd.Context(), in)
		}))
	create.Flags().StringVar(&agentID, "agent", "", "govern only this agent")
	policies := &cobra.Command{Use: "policies", Short: "Manage governance policies (an Agentry extension)"}
	policies.AddCommand(list, create,
		a.evalgovCall("get POLICY_ID", "Show a policy", "", 1, func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.GetGovernancePolicy(cmd.Context(), args[0])
		}),
		policyFlags(a.evalgovCall("update POLICY_ID", "Change the fields given as flags", "  agentry governance policies update $P --enabled=false", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				in, err := input(cmd)
				if err != nil {
					return nil, err
				}
				return c.UpdateGovernancePolicy(cmd.Context(), args[0], in)
			})),
		a.evalgovCall("delete POLICY_ID", "Delete a policy", "", 1, func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return nil, c.DeleteGovernancePolicy(cmd.Context(), args[0])
		}),
	)
	var stage, checkAgent string
	check := a.evalgovCall("check TEXT", "Check text against the policies (an Agentry extension)",
		`  agentry governance check --stage output "call me on +44 20 7946 0958"`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
			return c.CheckGovernance(cmd.Context(), checkAgent, stage, args[0])
		})
	check.Flags().StringVar(&stage, "stage", "input", "input or output")
	check.Flags().StringVar(&checkAgent, "agent", "", "include this agent's policies")

	cmd.AddCommand(
		a.evalgovCall("ask REQUEST", "Ask the assistant for a plan of policy changes",
			`  agentry governance ask "Block card numbers and e-mail addresses in responses"`, 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				return c.GovernanceAssistant(cmd.Context(), args[0])
			}),
		conversations,
		a.evalgovCall("accept CONVERSATION_ID", "Apply a proposed plan, in order", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				return c.AcceptGovernancePlan(cmd.Context(), args[0])
			}),
		a.evalgovCall("decline CONVERSATION_ID", "Decline a proposed plan; nothing changes", "", 1,
			func(cmd *cobra.Command, c *client.Client, args []string) (any, error) {
				return nil, c.DeclineGovernancePlan(cmd.Context(), args[0])
			}),
		policies, check, a.governanceViolationsCommand(),
	)
	return cmd
}
