// Package storetest opens a fresh, migrated database for a test: SQLite in
// the test's temporary directory, or, when SERVICE_TEST_DATABASE_URL is set,
// a new schema of its own on that PostgreSQL server, dropped when the test
// ends. Every store and API suite runs through it, so each runs on both.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/google/uuid"
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

// URL returns a database URL for a fresh database of dialect d: a file in a
// temporary directory, or a new PostgreSQL schema selected by search_path.
// It is what a child process (agentry serve) is given in end-to-end tests.
func URL(t testing.TB, d store.Dialect) string {
	t.Helper()
	if d == store.SQLite {
		return "sqlite:" + t.TempDir() + "/agentry.db"
	}
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		t.Skip(EnvDatabaseURL + " is not set")
	}
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer a.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = a.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a migrated database of dialect d, closed when the test ends.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), URL(t, d), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(fmt.Errorf("migrate: %w", err))
	}
	return db
}
