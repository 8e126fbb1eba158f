package solutions

import "github.com/agentry/agentry/internal/store"

// The rows this area returns, under its own name, so that its callers (the
// API) need not import the store. Interim: aliases of the store's types,
// until the area declares types of its own.
type (
	AssistantConversation = store.AssistantConversation
)

// Values of those rows that callers compare with.
const (
	LinkAgents         = store.LinkAgents
	LinkKnowledgeBases = store.LinkKnowledgeBases
	LinkSources        = store.LinkSources
)
