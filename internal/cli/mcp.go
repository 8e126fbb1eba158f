package cli

import (
	"github.com/agentry/agentry/internal/buildinfo"
	"github.com/agentry/agentry/internal/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(mcpCommand) }

// mcpCommand is `agentry mcp`: Agentry's MCP server on stdio, for desktop
// MCP clients that launch their servers as child processes.
func mcpCommand(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve Agentry's MCP tools on stdin/stdout, for desktop MCP clients",
		Long: `Speaks the Model Context Protocol on stdin and stdout: an MCP client that
launches this command can list, create and run agents, read, cancel and search
runs, search knowledge bases, and run the agents the account exposes as tools.

Every tool calls the API of the server this command is configured for
(--api-url or SERVICE_API_URL), with the same credentials as any other
command: --api-key, SERVICE_API_KEY, or the signed-in SSO profile, and
--account-id. Nothing but MCP messages is written to stdout. The agents the
account exposes as tools (agentry mcp-tools) are read again each time the
client lists the tools.`,
		Example: `  SERVICE_API_URL=https://agentry.example.com SERVICE_API_KEY=agk_… agentry mcp`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := mcpserver.NewLive(cmd.Context(), c, buildinfo.Read().String())
			if err != nil {
				return err
			}
			return s.Run(cmd.Context(), &mcp.StdioTransport{})
		},
	}
}
