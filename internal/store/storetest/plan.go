package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
)

// QueryPlan returns the database's plan for q, one line a step, for tests
// that check a query is served by an index. On PostgreSQL sequential scans
// are turned off for it, so that a small test table still shows the index
// the planner would pick at scale.
func QueryPlan(t testing.TB, db *store.DB, q string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	conn, err := db.R.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	explain, col := "EXPLAIN ", 0
	if db.Dialect == store.SQLite {
		explain, col = "EXPLAIN QUERY PLAN ", 3
	} else {
		if _, err := conn.ExecContext(ctx, `SET enable_seqscan = off`); err != nil {
			t.Fatal(err)
		}
		defer func() { _, _ = conn.ExecContext(ctx, `RESET enable_seqscan`) }()
	}
	rows, err := conn.QueryContext(ctx, explain+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(vals[col]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
