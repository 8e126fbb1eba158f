package accounts

import (
	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
)

// The rows this area's settings answer, under its own name so that its
// callers (the API) need not import where they are read: the members in
// the area's repository (directory), the keys in auth, beside the
// authenticator that reads them.
type (
	APIKey = auth.APIKey
	Member = directory.Member
)
