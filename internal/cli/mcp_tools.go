package cli

import (
	"io"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(mcpToolsCommand) }

// mcpToolsCommand is `agentry mcp-tools list|get|expose|hide` (an
// extension): which agents are tools of the account's MCP server.
func mcpToolsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp-tools",
		Short: "Choose which agents are tools of the MCP server (an Agentry extension)",
		Long: `An exposed agent is a tool of the account's MCP server (/mcp and agentry mcp):
calling it runs the agent and waits for its output. Only agents with a
dynamic_input or template_input trigger can be exposed; paused agents are not
offered.`,
	}
	row := func(t client.AgentMCPTool) []string {
		name, desc := "", ""
		if t.ToolName != nil {
			name = *t.ToolName
		}
		if t.Description != nil {
			desc = *t.Description
		}
		return []string{t.AgentID, name, desc}
	}
	header := []string{"Agent", "Tool", "Description"}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the exposed agents",
		Example: `  agentry mcp-tools list -o table`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			out, _, err := c.ListAgentMCPTools(cmd.Context(), 1, 100)
			if err != nil {
				return err
			}
			return a.print(cmd, out, func(w io.Writer) error {
				rows := make([][]string, len(out))
				for i, t := range out {
					rows[i] = row(t)
				}
				return writeTable(w, header, rows)
			})
		},
	}
	get := &cobra.Command{
		Use:     "get AGENT_ID",
		Short:   "Show how an agent is exposed",
		Example: `  agentry mcp-tools get 0190…`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			t, err := c.GetAgentMCPTool(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.print(cmd, t, func(w io.Writer) error { return writeTable(w, header, [][]string{row(*t)}) })
		},
	}
	var name, description string
	expose := &cobra.Command{
		Use:     "expose AGENT_ID",
		Short:   "Make an agent a tool of the MCP server",
		Example: `  agentry mcp-tools expose 0190… --name summarise_ticket --description "Summarises a support ticket"`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return setMCPTool(a, cmd, args[0], client.AgentMCPToolRequest{Enabled: true, ToolName: optional(name), Description: optional(description)})
		},
	}
	expose.Flags().StringVar(&name, "name", "", "the tool's name (default agent_<the agent's name>)")
	expose.Flags().StringVar(&description, "description", "", "the tool's description (default the agent's)")
	hide := &cobra.Command{
		Use:     "hide AGENT_ID",
		Short:   "Stop offering an agent as a tool",
		Example: `  agentry mcp-tools hide 0190…`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return setMCPTool(a, cmd, args[0], client.AgentMCPToolRequest{Enabled: false})
		},
	}
	cmd.AddCommand(list, get, expose, hide)
	return cmd
}

func setMCPTool(a *App, cmd *cobra.Command, agentID string, req client.AgentMCPToolRequest) error {
	c, err := a.Client()
	if err != nil {
		return err
	}
	t, err := c.SetAgentMCPTool(cmd.Context(), agentID, req)
	if err != nil {
		return err
	}
	return a.print(cmd, t, nil)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
