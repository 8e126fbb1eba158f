package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// What an area's repository needs from the store when it keeps its SQL
// beside its service (internal/secrets/repo.go is the first): the pools
// (DB.W, DB.R), transactions (DB.Tx), the clock (Now), the shared errors,
// and the helpers below, so an area's query reads one row or a list
// without a hand-written rows.Next loop.

// Querier is what a query runs on: a pool or a transaction.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Scanner is a row to scan: *sql.Row or *sql.Rows.
type Scanner interface{ Scan(dest ...any) error }

// All runs a query and scans every row with scan, in order. It answers an
// empty (not nil) slice when no row matches, so a list encodes as [].
func All[T any](ctx context.Context, q Querier, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ScanString scans a row of one text column (an id, a name): with All,
// a list of them.
func ScanString(r Scanner) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}

// One runs a query for one row and scans it with scan; ErrNotFound when
// there is none.
func One[T any](ctx context.Context, q Querier, scan func(Scanner) (T, error), query string, args ...any) (T, error) {
	v, err := scan(q.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		var zero T
		return zero, ErrNotFound
	}
	return v, err
}

// Affected runs a statement and answers ErrNotFound when it changed no row.
func Affected(ctx context.Context, q Querier, query string, args ...any) error {
	n, err := rowsAffected(q.ExecContext(ctx, query, args...))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// IsUniqueViolation reports whether err is a unique-key refusal, on
// either database: an area's repository answers ErrConflict for it.
func IsUniqueViolation(err error) bool { return isUniqueViolation(err) }

// IsForeignKeyViolation reports whether err is a foreign-key refusal (the
// row named does not exist), on either database.
func IsForeignKeyViolation(err error) bool { return err != nil && isForeignKeyViolation(err) }

// StringOrNil is a nullable text column as a pointer: nil for NULL.
func StringOrNil(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

// IntOrNil is a nullable integer column as a pointer: nil for NULL.
func IntOrNil(v sql.NullInt64) *int { return nullInt(v) }

// Prepared returns a statement on the read pool, prepared once per query
// and reused (see prepared): for an area's hottest reads.
func (db *DB) Prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	return db.prepared(ctx, query)
}

// TimeOrNil is a nullable time column as a pointer, in UTC: nil for NULL.
func TimeOrNil(v sql.NullTime) *time.Time {
	if !v.Valid {
		return nil
	}
	t := v.Time.UTC()
	return &t
}

// ResultsTx is Tx on DB.Results, the evaluation results' writer (on
// SQLite a file of its own): the evals area writes its results there.
func (db *DB) ResultsTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.resultsTx(ctx, fn)
}

// LockFor is a row-locking clause ("UPDATE", "SHARE", "UPDATE SKIP
// LOCKED") for PostgreSQL, and nothing on SQLite, whose write transaction
// already excludes every other writer.
func (db *DB) LockFor(mode string) string { return db.lockFor(mode) }

// Placeholders returns "$from, …" for n parameters, for an IN list.
func Placeholders(from, n int) string { return placeholders(from, n) }

// IDsPerStatement bounds an IN list, well under both databases' limits on
// a statement's parameters.
const IDsPerStatement = 500

// InChunks calls fn with ids as statement parameters, IDsPerStatement at a
// time, for reads by an IN list of any length.
func InChunks(ids []string, fn func(part []any) error) error {
	for len(ids) > 0 {
		n := min(len(ids), IDsPerStatement)
		part := make([]any, n)
		for i, id := range ids[:n] {
			part[i] = id
		}
		if err := fn(part); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// NullIfEmpty is a text parameter that is NULL when s is "".
func NullIfEmpty(s string) any { return nullable(s) }

// NullIfNil is a text parameter that is NULL when s is nil.
func NullIfNil(s *string) any { return nullablePtr(s) }

// NullJSON is a JSON parameter that is NULL when b is empty or null.
func NullJSON(b json.RawMessage) any { return nullableJSON(b) }

// RawOrNil is a nullable JSON column as raw JSON: nil for NULL.
func RawOrNil(v sql.NullString) json.RawMessage { return rawOrNil(v) }

// RowsAffected is how many rows an ExecContext changed, for a statement
// whose count is the answer (materializing judgments counts what it wrote).
func RowsAffected(res sql.Result, err error) (int, error) { return rowsAffected(res, err) }

// NonNil is s, or an empty list for nil, so that a list column stores
// (and a response encodes) [] rather than null.
func NonNil(s []string) []string { return nonNil(s) }

// EscapeLike escapes the LIKE wildcards of s (the escape character is \):
// the store's search and the areas' name filters match a literal part.
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
