package server

import (
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/mcpexpose"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/regressions"
	"github.com/agentry/agentry/internal/store"
)

// agentRows is the agents area's repository for the areas that read
// agents but may not import the agents service (archtest's
// TestAreasDoNotAdapt): evaluations, governance, regressions, the MCP
// exposure and the model lifecycle. Each declares the small interface it
// needs, in the row types of internal/agents/agentrow; the repository
// answers all of them as they are. It needs only the database, so
// evaluations, governance and the model lifecycle, built before the
// agents service (which depends on the last two), get it without the
// late binding of late.go.
func agentRows(db *store.DB) agents.Repo { return agents.NewRepo(db) }

// What each area asks of the agents, answered by the repository.
var (
	_ evals.Agents       = agents.Repo{}
	_ governance.Agents  = agents.Repo{}
	_ regressions.Agents = agents.Repo{}
	_ mcpexpose.Agents   = agents.Repo{}
	_ modelalerts.Agents = agents.Repo{}
)
