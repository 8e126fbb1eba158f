package store_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// On SQLite the WAL is copied into the database file beside the writer:
// the writer's own checkpoints are only a backstop far beyond what this
// test writes, yet the file takes in the rows within moments. Closing
// stops the checkpointer (twice is harmless).
func TestSQLiteCheckpointsBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	var backstop int
	if err := db.W.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&backstop); err != nil || backstop < 5000 {
		t.Fatalf("writer checkpoints every %d pages (%v), want only as a backstop", backstop, err)
	}
	if _, err := db.W.ExecContext(ctx, `CREATE TABLE checkpoint_probe (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	fileSize := func() int64 {
		fi, err := os.Stat(db.Path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := fileSize()
	const rows, rowBytes = 512, 8 << 10 // 4 MiB: about 1000 pages, a tenth of the backstop
	for range rows {
		if _, err := db.W.ExecContext(ctx, `INSERT INTO checkpoint_probe (b) VALUES (randomblob($1))`, rowBytes); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for fileSize() < before+rows*rowBytes {
		if time.Now().After(deadline) {
			t.Fatalf("the database file grew from %d to %d bytes after %d bytes were committed: nothing checkpointed it", before, fileSize(), rows*rowBytes)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
