// Command agentry is the whole platform in one binary: `agentry serve` runs
// it, `agentry admin` manages a database directly, and every other command
// is the command-line client of the HTTP API.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentry/agentry/internal/admin"
	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot()
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "agentry:", err)
		os.Exit(exitCode(err))
	}
}

// newRoot builds the whole command tree (the docs test walks it too).
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "agentry",
		Short:         "Agentry: build, run and govern AI agents",
		Long:          "Agentry is a self-hostable agent platform. `agentry serve` starts it; `agentry admin` manages a database directly; the other commands talk to a running server over its HTTP API.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCommand(), admin.Command())
	addClientCommands(root)
	return root
}
