// Package solutionrow is the solutions area's row (a solution as stored,
// without its links) and its tables (solutions, solution_agents) as the
// agents area reaches them: an agent's import finds the account's
// solutions by name and links the new agent to them in the transaction
// that creates it, its export names the solutions the agent belongs to,
// and the account search finds solutions (Search).
//
// It is a package of its own, beside the service, because the solutions
// service imports the agents service (its assistants create and edit
// agents), so the agents area cannot import it back; and because the link
// belongs in the agent's transaction, each function takes the caller's
// querier, a pool or a transaction. It imports no service. Only the
// solutions area (its repository and this package) names its tables
// (archtest's TestAreasOwnTheirTables).
package solutionrow
