package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// A data directory's name is a name: '#', '%' and '?' in it open the files
// in it, the database, its results file and the readers that attach it,
// not files cut short where a URI would end its path.
func TestSQLiteFileNamesAreTakenLiterally(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parent := t.TempDir()
	dir := filepath.Join(parent, "C# 100%25 done?yes")
	db, err := store.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "Hash"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Results.ExecContext(ctx, `INSERT INTO criteria_deletions (criteria_id, account_id) VALUES ($1, $2)`, store.NewID(), acct.ID); err != nil {
		t.Fatal(err)
	}
	// The readers see the database's writes and, attached, the results
	// file's.
	var accounts, deletions int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE id = $1`, acct.ID).Scan(&accounts); err != nil || accounts != 1 {
		t.Fatalf("the readers see %d of the account, %v", accounts, err)
	}
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM criteria_deletions`).Scan(&deletions); err != nil || deletions != 1 {
		t.Fatalf("the readers see %d rows of the results file, %v", deletions, err)
	}
	for _, name := range []string{"agentry.db", "agentry.results.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("files beside the data directory: %v", entries)
	}
}

// What sqlite:PATH cannot be is refused with a reason, before any file is
// made.
func TestSQLiteURLsThatCannotWork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for url, want := range map[string]string{
		"sqlite::memory:":                          "in-memory",
		"file::memory:":                            "in-memory",
		"sqlite::memory:?cache=shared":             "in-memory",
		"sqlite:":                                  "needs the path of a file",
		"sqlite:" + dir + "/agentry.db?mode=ro":    "without ?parameters",
		"file:" + dir + "/agentry.db?_pragma=x(1)": "without ?parameters",
	} {
		db, err := store.Open(context.Background(), url, dir)
		if err == nil {
			db.Close()
			t.Errorf("%s opened", url)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want it to say %q", url, err, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files made: %v", entries)
	}
}
