package accounts

import (
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/store"
)

// The rows this area returns, under its own name, so that its callers (the
// API) need not import the store or auth. Interim for Member: an alias of
// the store's type, until the area declares types of its own. An API key
// is auth's: the keys' SQL is beside the authenticator that reads them.
type (
	APIKey = auth.APIKey
	Member = store.Member
)
