package evals

import "github.com/agentry/agentry/internal/evals/evalrow"

// EvaluationCriterion is a criterion under this area's service's name, so
// that its callers (the API) need not import the row's package. The row
// is this area's leaf's (evalrow) because an agent's import and export
// (internal/agents) write and read criteria with their agent, in the
// agent's transaction, and neither service may import the other.
type EvaluationCriterion = evalrow.Criterion
