// Package storetest opens a fresh, migrated database for a test: SQLite in
// the test's temporary directory, or, when SERVICE_TEST_DATABASE_URL is set,
// a database of its own on that PostgreSQL server, dropped when the test
// ends. Each is a copy of a template migrated once (template.go), not
// migrated anew. Every store and API suite runs through it, so each runs on
// both.
package storetest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/agentry/agentry/internal/store"
)

// EnvDatabaseURL names the PostgreSQL server the suites run on when set.
const EnvDatabaseURL = "SERVICE_TEST_DATABASE_URL"

// Dialects lists the databases the suites run on in this environment.
func Dialects() []store.Dialect {
	if os.Getenv(EnvDatabaseURL) != "" {
		return []store.Dialect{store.SQLite, store.Postgres}
	}
	return []store.Dialect{store.SQLite}
}

// Each runs fn as a subtest per available dialect.
func Each(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	for _, d := range Dialects() {
		t.Run(string(d), func(t *testing.T) { fn(t, d) })
	}
}

// EachParallel is Each with the dialects' subtests run in parallel, with
// each other and with the package's other parallel tests: for tests whose
// databases, servers and tenants are their own. Mark the test itself
// parallel with t.Parallel as usual.
func EachParallel(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	for _, d := range Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, d)
		})
	}
}

// URL returns a database URL for a fresh, migrated database of dialect d:
// a copy of the migrated template (see template.go) in a temporary
// directory, or a PostgreSQL database of its own made from the template
// and dropped when the test ends. It is what a child process (agentry
// serve) is given in end-to-end tests; migrating it again is a no-op.
func URL(t testing.TB, d store.Dialect) string {
	t.Helper()
	return newURL(t, d, false)
}

// EmptyURL is URL for an empty database, never migrated, for tests of
// migration itself (replicas migrating one database at once).
func EmptyURL(t testing.TB, d store.Dialect) string {
	t.Helper()
	return newURL(t, d, true)
}

func newURL(t testing.TB, d store.Dialect, empty bool) string {
	t.Helper()
	if d == store.SQLite {
		dir := t.TempDir()
		if empty {
			return "sqlite:" + dir + "/agentry.db"
		}
		path, err := cloneSQLite(dir)
		if err != nil {
			t.Fatal(err)
		}
		return "sqlite:" + path
	}
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		t.Skip(EnvDatabaseURL + " is not set")
	}
	srv, err := postgres(base)
	if err != nil {
		t.Fatal(err)
	}
	name, err := srv.create(context.Background(), empty)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.drop(name); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return srv.urlOf(name)
}

// Open returns a migrated database of dialect d, closed when the test ends.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), URL(t, d), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil { // a no-op on the template's copy
		t.Fatal(fmt.Errorf("migrate: %w", err))
	}
	return db
}
