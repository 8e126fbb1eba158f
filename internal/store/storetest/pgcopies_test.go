package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func testServer(t *testing.T) *pgServer {
	t.Helper()
	base := os.Getenv(EnvDatabaseURL)
	if base == "" {
		t.Skip(EnvDatabaseURL + " is not set")
	}
	srv, err := postgres(base)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func openPG(url string) (*sql.DB, error) { return sql.Open("pgx", url) }

func databaseExists(t *testing.T, srv *pgServer, name string) bool {
	t.Helper()
	var n int
	if err := srv.admin.QueryRow(`SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// deadPID is the process ID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no process to spare: %v", err)
	}
	return cmd.Process.Pid
}

func TestDropsHappenBehindTheTest(t *testing.T) {
	srv := testServer(t)
	name, err := srv.createNow(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, srv.testDBPrefix()+fmt.Sprintf("%07d_", os.Getpid())) {
		t.Fatalf("%s is not named for this process (prefix %s)", name, srv.testDBPrefix())
	}
	// This process's own drops go before any orphans its start found.
	select {
	case <-srv.dropLater(name):
	case <-time.After(time.Minute):
		t.Fatal("the queued drop did not finish in a minute")
	}
	if databaseExists(t, srv, name) {
		t.Fatalf("%s is still there", name)
	}
}

func TestSweepDropsOnlyWhatEndedProcessesLeft(t *testing.T) {
	srv := testServer(t)
	ctx := context.Background()
	prefix := srv.testDBPrefix()
	left := prefix + fmt.Sprintf("%07d_%s", deadPID(t), randomSuffix()[:12])
	mine := srv.testDBName()
	// A live process other than this one: the test binary's parent.
	other := prefix + fmt.Sprintf("%07d_%s", os.Getppid(), randomSuffix()[:12])
	for _, name := range []string{left, mine, other} {
		if _, err := srv.admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, name := range []string{mine, other} {
			srv.dropLater(name)
		}
	})
	found, err := srv.orphans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orphan := map[string]bool{}
	for _, name := range found {
		orphan[name] = true
	}
	if !orphan[left] {
		t.Errorf("%s, left by an ended process, is not found among the orphans %v", left, found)
	}
	for _, name := range []string{mine, other} {
		if orphan[name] {
			t.Errorf("%s, a live process's, is taken for an orphan", name)
		}
	}
	// Dropped as this process's own, ahead of the orphans the process's
	// start found (a whole suite's run can leave a hundred).
	select {
	case <-srv.dropLater(left):
	case <-time.After(time.Minute):
		t.Fatal("the orphan's drop did not finish in a minute")
	}
	if databaseExists(t, srv, left) {
		t.Errorf("%s was not dropped", left)
	}
}

func TestSparesAreMigratedCopies(t *testing.T) {
	srv := testServer(t)
	// The second copy a process asks for starts the spares; a third finds
	// one made ahead (or makes its own while they are being made).
	var names []string
	for i := 0; i < 3; i++ {
		name, err := srv.create(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		t.Cleanup(func() { srv.dropLater(name) })
	}
	select {
	case name := <-srv.copies.spares:
		names = append(names, name)
		t.Cleanup(func() { srv.dropLater(name) })
	case <-time.After(time.Minute):
		t.Fatal("no spare was made in a minute")
	}
	for _, name := range names {
		db, err := openPG(srv.urlOf(name))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = db.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'river_job'`).Scan(&n)
		db.Close()
		if err != nil || n != 1 {
			t.Errorf("%s: the job queue's table %d times (%v): not a migrated copy", name, n, err)
		}
	}
}
