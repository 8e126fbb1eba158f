// Package evalrow is the evaluations area's tables (evaluation_criteria,
// evaluation_results) as other areas reach them: an agent's import writes
// its criteria in the transaction that creates the agent and its export
// reads them back (internal/agents), the account search finds criteria
// (CriteriaSearch), and the runs area's runrow.ResultRuns groups results
// by run in one statement over the source this package names (Results).
//
// It is a package of its own, beside the service, because the agents area
// may not import the evaluations service (archtest's TestAreasDoNotAdapt)
// and their writes belong in the agent's transaction: each function takes
// the caller's querier, a pool or a transaction. It imports no service.
// Only the evaluations area (its repository and this package) names its
// tables (archtest's TestAreasOwnTheirTables).
package evalrow
