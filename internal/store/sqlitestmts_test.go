package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// The statement cache must be invisible: the same results as preparing
// afresh, also for a query run again while its first rows are open, for
// statements evicted while in use, and for failing statements.
func TestSQLiteStatementCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := openSQLite(ctx, filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.W.Conn(ctx) // one connection: every statement below shares its cache
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustExec(`CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
	for i := 1; i <= 5; i++ {
		mustExec(`INSERT INTO kv (k, v) VALUES ($1, $2)`, i, fmt.Sprint("v", i)) // one text, reused
	}
	// A failing reuse (constraint) leaves the statement usable.
	if _, err := conn.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES ($1, $2)`, 1, "dup"); err == nil {
		t.Fatal("duplicate key accepted")
	}
	mustExec(`INSERT INTO kv (k, v) VALUES ($1, $2)`, 6, "v6")

	// Nested: the same query text while its rows are open.
	const q = `SELECT k, v FROM kv WHERE k >= $1 ORDER BY k`
	outer, err := conn.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	types, err := outer.ColumnTypes()
	if err != nil || len(types) != 2 || types[1].DatabaseTypeName() != "TEXT" {
		t.Fatalf("column types %v %v", types, err)
	}
	seen := 0
	for outer.Next() {
		var k int
		var v string
		if err := outer.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		seen++
		var n int
		inner, err := conn.QueryContext(ctx, q, k)
		if err != nil {
			t.Fatal(err)
		}
		for inner.Next() {
			n++
		}
		inner.Close()
		if want := 7 - k; n != want || v != fmt.Sprint("v", k) {
			t.Fatalf("inner read at k=%d: %d rows (want %d), v=%q", k, n, want, v)
		}
	}
	if err := outer.Close(); err != nil || seen != 6 {
		t.Fatalf("outer: %d rows, %v", seen, err)
	}

	// Eviction while a statement's rows are open: they read on, and the
	// query works afterwards.
	open, err := conn.QueryContext(ctx, q, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxCachedStmts+10; i++ {
		var v int
		if err := conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&v); err != nil || v != i {
			t.Fatalf("distinct query %d: %d %v", i, v, err)
		}
	}
	n := 0
	for open.Next() {
		n++
	}
	if err := open.Close(); err != nil || n != 3 {
		t.Fatalf("rows across eviction: %d, %v", n, err)
	}
	var (
		k int
		v string
	)
	if err := conn.QueryRowContext(ctx, q, 6).Scan(&k, &v); err != nil || k != 6 {
		t.Fatal(k, err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT v FROM kv WHERE k = $1`, 6).Scan(&v); err != nil || v != "v6" {
		t.Fatalf("after eviction: %q %v", v, err)
	}
	if err := conn.Raw(func(dc any) error {
		if c, ok := dc.(*cachingConn); !ok || len(c.stmts) > maxCachedStmts {
			return fmt.Errorf("connection %T holds too many statements", dc)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
