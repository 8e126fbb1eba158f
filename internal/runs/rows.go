package runs

import "github.com/agentry/agentry/internal/store"

// The rows this area returns, under its own name, so that its callers (the
// API) need not import the store. Interim: aliases of the store's types,
// until the area declares types of its own.
type (
	RunFilter   = store.RunFilter
	RunListItem = store.RunListItem
)

// Values of those rows that callers compare with.
const (
	RunFailed = store.RunFailed
)
