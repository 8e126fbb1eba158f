package evals

import "github.com/agentry/agentry/internal/store"

// EvaluationCriterion is a criterion under this area's name, so that its
// callers (the API) need not import the store. It stays the store's row
// because an agent's import and export (internal/agents/repo_extras.go)
// write and read criteria with their agent, in the agent's transaction,
// and neither area may import the other.
type EvaluationCriterion = store.EvaluationCriterion
