// Package agentrow is the agents area's row: an agent as its repository
// (package agents, repo_*.go) reads and writes it, and the one write other
// areas make to it in their own transactions (BumpOversight).
//
// It is a package of its own, beside the service, because areas that may
// not import the agents service (archtest's TestAreasDoNotAdapt: the
// evaluations, governance, the model lifecycle, the MCP exposure) read
// agents through small interfaces of their own that the server wires to
// the agents' repository, and those interfaces need the row's type. It
// imports no service and holds no query but BumpOversight's.
package agentrow
