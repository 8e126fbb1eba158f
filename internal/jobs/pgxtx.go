package jobs

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// heldTx is the transaction database/sql began on a pgx connection, seen
// as the pgx.Tx River's PostgreSQL driver inserts on: its statements run
// on that connection, hence within that transaction. database/sql owns
// the transaction, so ending it (or nesting one) through here is refused.
type heldTx struct{ conn *pgx.Conn }

var errHeldTx = errors.New("jobs: the transaction belongs to the store; end it there")

func (t heldTx) Begin(context.Context) (pgx.Tx, error) { return nil, errHeldTx }
func (t heldTx) Commit(context.Context) error          { return errHeldTx }
func (t heldTx) Rollback(context.Context) error        { return errHeldTx }
func (t heldTx) LargeObjects() pgx.LargeObjects        { return pgx.LargeObjects{} }
func (t heldTx) Conn() *pgx.Conn                       { return t.conn }

func (t heldTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t heldTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, b)
}

func (t heldTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t heldTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.conn.Exec(ctx, sql, args...)
}

func (t heldTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.conn.Query(ctx, sql, args...)
}

func (t heldTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.conn.QueryRow(ctx, sql, args...)
}
