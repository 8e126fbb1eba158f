package store

import "github.com/google/uuid"

// The accounts, users and memberships are the accounts area's
// (internal/accounts/directory), and so is the account row's lock that
// other areas take in their own transactions (directory.LockAccount).
// What stays here is shared: the ids every table uses.

// NewID returns a UUIDv7: time-ordered, so ids sort by creation.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }
