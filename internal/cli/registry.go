package cli

import "github.com/spf13/cobra"

// commandBuilder makes one top-level command for an App.
type commandBuilder struct {
	group string
	new   func(*App) *cobra.Command
}

// commands are the top-level client commands. Each area's file adds its
// own from init, so adding an area never edits this package's core.
var commands []commandBuilder

// addAPICommand registers a resource command (`agentry <resource> …`).
func addAPICommand(f func(*App) *cobra.Command) {
	commands = append(commands, commandBuilder{group: groupAPI, new: f})
}

// addAuthCommand registers a sign-in or configuration command.
func addAuthCommand(f func(*App) *cobra.Command) {
	commands = append(commands, commandBuilder{group: groupAuth, new: f})
}
