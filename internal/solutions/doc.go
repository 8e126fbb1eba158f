// Package solutions owns solutions (named groups of an account's agents,
// knowledge bases and sources) and the assistants that build them: the
// planning assistants (solution, knowledge-base and source), which turn a
// goal in plain language into a validated plan of typed actions that the
// caller accepts (executed in order, each result reported) or declines
// (nothing changes); the agent assistant, which writes an agent's workflow
// or one step's configuration; and feedback on any of them.
//
// Planning works offline: without a configured assistant model, the
// built-in planner reads the request deterministically and maps it onto the
// resource kinds, step types and templates it can name. With a model, the
// plan comes back as JSON constrained by a schema, and a plan that fails
// validation is sent back with the validator's errors, at most twice.
//
// The solution's row and what the agents area and the account search
// need of the solutions' tables are in the area's leaf package,
// solutionrow.
package solutions
