package accounts

import "github.com/agentry/agentry/internal/auth"

// APIKey is a key as the account's settings answer it, under this area's
// name so that its callers (the API) need not import auth, where the
// keys' SQL is (beside the authenticator that reads them).
type APIKey = auth.APIKey
