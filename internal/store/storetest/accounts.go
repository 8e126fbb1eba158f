package storetest

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// NewAccount makes a user and their account, with a few opening credits,
// and returns the account's id: what an area's repository test needs to
// own rows.
func NewAccount(tb testing.TB, db *store.DB) string {
	tb.Helper()
	_, a, err := directory.CreateUser(context.Background(), db, directory.NewUser{Name: "u", OpeningCredits: 5})
	if err != nil {
		tb.Fatal(err)
	}
	return a.ID
}
