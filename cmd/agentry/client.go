package main

import (
	"github.com/agentry/agentry/internal/cli"
	"github.com/spf13/cobra"
)

// addClientCommands adds the API client commands (agentry me, agentry
// version, …) and the global client flags.
func addClientCommands(root *cobra.Command) { cli.Register(root) }

// exitCode maps an error to the process exit status.
func exitCode(err error) int { return cli.ExitCode(err) }
