// Package agentrow is the agents area's row: an agent as its repository
// (package agents, repo_*.go) reads and writes it, and the agents area's
// tables (agents, agent_triggers, trigger_schedules) as other areas ask
// about them: whether an agent is live in an account, its name or trigger
// (repo_reads.go), the runs scheduler's due schedules
// (repo_schedules.go), and the one write other areas make to an agent
// (BumpOversight). Only the agents area names those tables (archtest's
// TestAreasOwnTheirTables), and this package is that area's.
//
// It is a package of its own, beside the service, because areas that may
// not import the agents service (archtest's TestAreasDoNotAdapt: the
// evaluations, governance, the model lifecycle, the MCP exposure) read
// agents through small interfaces of their own that the server wires to
// the agents' repository, and those interfaces need the row's type; and
// because their checks of an agent belong in their own transactions, so
// each function here takes the caller's querier (a pool or a
// transaction). It imports no service. The agent's and its trigger's
// inserts (repo_write.go) are here too, for the agents repository and for
// the test support that seeds an agent without it (storetest, which the
// agents area's own tests use).
package agentrow
