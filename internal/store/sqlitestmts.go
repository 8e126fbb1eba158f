package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"

	"modernc.org/sqlite"
)

// The SQLite driver prepares (parses and plans) a statement afresh on every
// Exec and Query that is not run through a prepared statement, and frees it
// after. Profiles of the run path put that parsing among the largest costs
// of a run, on the single writer connection above all: every write of every
// run, River's queue queries included, goes through it. These types keep
// each connection's statements prepared, by query text, and reuse them; the
// driver resets and unbinds a statement after each use, so a reused one is
// as good as new. Nothing above database/sql notices: the same queries, the
// same results, no new API.

// maxCachedStmts bounds one connection's cache. Queries built with a varying
// number of placeholders make new texts; once the cache is full it is
// emptied and refilled from the queries that follow, which keeps the hot ones.
const maxCachedStmts = 256

// sqliteConnector opens SQLite connections that keep their statements,
// and, when attach is set, attach that database file as "results" (the
// evaluation results file, see DB.Results).
type sqliteConnector struct {
	base   driver.Connector
	attach string
}

func newSQLiteConnector(dsn, attach string) (driver.Connector, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sqliteConnector{base: c, attach: attach}, nil
}

func (c sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if c.attach != "" {
		ex, ok := conn.(driver.ExecerContext)
		if !ok {
			conn.Close()
			return nil, errDriverShape
		}
		if _, err := ex.ExecContext(ctx, `ATTACH DATABASE $1 AS results`, []driver.NamedValue{{Ordinal: 1, Value: c.attach}}); err != nil {
			conn.Close()
			return nil, fmt.Errorf("attach %s: %w", c.attach, err)
		}
	}
	return newCachingConn(conn)
}

func (c sqliteConnector) Driver() driver.Driver { return c.base.Driver() }

// sqliteConn is the interface set of the driver's connection this wrapper
// forwards; newCachingConn checks it once, so a driver upgrade that drops
// one fails at the first connection, not at some later call.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is one connection with its prepared statements. database/sql
// never uses a connection from two goroutines at once (it locks the
// connection around every driver call, Rows.Close included), so the cache
// needs no lock of its own.
type cachingConn struct {
	sqliteConn
	stmts map[string]*cachedStmt
}

// stmtHandle is what the cache needs of the driver's statements.
type stmtHandle interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type cachedStmt struct {
	s stmtHandle
	// busy is set while rows read from the statement are open: a query
	// run again before they close (a nested read of the same text) gets a
	// statement of its own.
	busy bool
}

func newCachingConn(c driver.Conn) (driver.Conn, error) {
	sc, ok := c.(sqliteConn)
	if !ok {
		c.Close()
		return nil, errDriverShape
	}
	return &cachingConn{sqliteConn: sc, stmts: map[string]*cachedStmt{}}, nil
}

var errDriverShape = driverShapeError{}

type driverShapeError struct{}

func (driverShapeError) Error() string {
	return "store: the SQLite driver's connection lacks an interface the statement cache forwards"
}

// stmt returns the connection's statement for query, preparing it on first
// use; nil when it is in use (the caller runs the query uncached).
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil, nil
		}
		return cs, nil
	}
	ds, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s, ok := ds.(stmtHandle)
	if !ok {
		ds.Close()
		return nil, errDriverShape
	}
	if len(c.stmts) >= maxCachedStmts {
		c.evict()
	}
	cs := &cachedStmt{s: s}
	c.stmts[query] = cs
	return cs, nil
}

// evict closes every statement not in use and forgets them all; one in use
// is closed by its rows when they close.
func (c *cachingConn) evict() {
	for q, cs := range c.stmts {
		if !cs.busy {
			cs.s.Close()
		} else {
			cs.busy = false // orphaned: its rows close it
			cs.s = orphan{cs.s}
		}
		delete(c.stmts, q)
	}
}

// orphan marks a statement evicted while its rows were open.
type orphan struct{ stmtHandle }

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return cs.s.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.s.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cs: cs}, nil
}

// Close finalizes the kept statements, then closes the connection.
func (c *cachingConn) Close() error {
	for q, cs := range c.stmts {
		cs.s.Close()
		delete(c.stmts, q)
	}
	return c.sqliteConn.Close()
}

// cachedRows gives its statement back when closed. The driver resets the
// statement itself on Close; the column type methods are passed through
// for database/sql's ColumnTypes.
type cachedRows struct {
	driver.Rows
	cs     *cachedStmt
	closed bool
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	if !r.closed {
		r.closed = true
		if o, ok := r.cs.s.(orphan); ok {
			o.Close()
		} else {
			r.cs.busy = false
		}
	}
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
