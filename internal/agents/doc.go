// Package agents owns agents: creating them (from scratch, a template or
// an imported export), their settings, their workflow definition with
// optimistic locking and history, exports and import previews, pausing,
// the callers of an agent, the attachment contract, and files uploaded as
// run input with their text extraction and expiry.
//
// The workflow format itself belongs to the definition package; this
// package applies it to an account's data: it resolves references against
// the account, stores what an import brings, and builds exports from what
// is stored. Handlers in internal/api call the Service; the runs area reads
// agents (with their paused state) and uploads through the server's
// adapter (internal/server/wiring.go), and the evaluations, governance,
// regressions, the MCP exposure and the model lifecycle read agents
// through interfaces of their own that the server answers with this
// area's repository (Repo; internal/server/wiring_agents.go), so none of
// them imports this package. The agent's row type is in agentrow, which
// they may import, and so are the questions other areas ask of the agents
// tables in their own queries and transactions (is this agent live in
// this account, its name, its trigger, the due schedules): the agents,
// agent_triggers and trigger_schedules tables are named only by this
// area's packages.
package agents
