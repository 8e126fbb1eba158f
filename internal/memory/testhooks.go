package memory

import "github.com/agentry/agentry/internal/store"

// Rows is the memory area's repository, reached directly. Only tests
// outside this package use it (they cannot see an export_test.go): to seed
// entries at chosen times and in bulk without the API's embedding, to read
// back what a write kept, and to recount the stats totals after a bulk
// load. Nothing but tests may call it: everything else goes through the
// Service.
type Rows struct{ repo }

// TestRows returns the repository on db, for tests.
func TestRows(db *store.DB) Rows { return Rows{repo{db}} }
