package knowledge

import "github.com/agentry/agentry/internal/store"

// The rows this area returns, under its own name, so that its callers (the
// API) need not import the store. Interim: aliases of the store's types,
// until the area declares types of its own.
type (
	KnowledgeBase = store.KnowledgeBase
)
