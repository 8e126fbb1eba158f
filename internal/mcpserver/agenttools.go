package mcpserver

import "context"

// addAgentTools adds a tool for each agent the account exposes.
func (b builder) addAgentTools(ctx context.Context) error { return nil }
