package store

import (
	"context"

	"github.com/pressly/goose/v3"
)

// SetAfterJudgmentsRead makes f run between reading journaled judgments
// and writing them (SQLite), so a test can change the run in between.
func (db *DB) SetAfterJudgmentsRead(f func()) { db.afterJudgmentsRead = f }

// SetAfterResultsWritten makes f run between writing materialized results
// and clearing the runs' marks (SQLite).
func (db *DB) SetAfterResultsWritten(f func()) { db.afterResultsWritten = f }

// RedoMigration rolls the schema back to before version, then up again:
// what a test of a migration's backfill runs.
func (db *DB) RedoMigration(ctx context.Context, version int64) error {
	dialect := goose.DialectSQLite3
	if db.Dialect == Postgres {
		dialect = goose.DialectPostgres
	}
	files, err := dialectMigrations(db.Dialect)
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(dialect, db.W, files)
	if err != nil {
		return err
	}
	if _, err := p.DownTo(ctx, version-1); err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}
