package runs

import "github.com/agentry/agentry/internal/store"

// Values of the area's rows that its callers (the API) compare with, under
// its own name, so that they need not import the store.
const (
	RunFailed = store.RunFailed
)
