package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"testing/fstest"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// The schema has one history for both dialects: migrations/NNNNN_name.sql,
// written in the SQL both accept, with DATETIME for timestamps (rewritten
// to TIMESTAMPTZ for PostgreSQL as the files are read). A migration only
// one dialect needs (an extension, a dialect-only index) goes in
// migrations/<dialect>/ with a number of its own.
//
//go:embed migrations
var migrations embed.FS

var datetime = regexp.MustCompile(`\bDATETIME\b`)

// dialectMigrations assembles the migration files one dialect runs.
// fstest.MapFS is simply an in-memory fs.FS; nothing here is a test.
func dialectMigrations(d Dialect) (fs.FS, error) {
	out := fstest.MapFS{}
	add := func(dir string, rewrite bool) error {
		entries, err := fs.ReadDir(migrations, dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() || path.Ext(e.Name()) != ".sql" {
				continue
			}
			b, err := fs.ReadFile(migrations, path.Join(dir, e.Name()))
			if err != nil {
				return err
			}
			if rewrite {
				b = datetime.ReplaceAll(b, []byte("TIMESTAMPTZ"))
			}
			if _, dup := out[e.Name()]; dup {
				return fmt.Errorf("migration %s exists twice", e.Name())
			}
			out[e.Name()] = &fstest.MapFile{Data: b}
		}
		return nil
	}
	if err := add("migrations", d == Postgres); err != nil {
		return nil, err
	}
	if _, err := fs.Stat(migrations, "migrations/"+string(d)); err == nil {
		if err := add("migrations/"+string(d), false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Migrate brings the schema up to date. Concurrent starts take turns: on
// PostgreSQL under a session advisory lock, on SQLite under a file lock
// beside the database, so any number of replicas or processes may start at
// once.
func (db *DB) Migrate(ctx context.Context) error {
	var (
		dialect goose.Dialect
		opts    []goose.ProviderOption
	)
	switch db.Dialect {
	case SQLite:
		dialect = goose.DialectSQLite3
		unlock, err := db.MigrationLock()
		if err != nil {
			return err
		}
		defer unlock()
	case Postgres:
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	files, err := dialectMigrations(db.Dialect)
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(dialect, db.W, files, opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", db.Dialect, err)
	}
	return nil
}

// MigrationLock serialises schema changes of an SQLite database across
// processes (the job queue's migrations take it too). On PostgreSQL each
// migrator takes its own advisory lock, so this is a no-op there.
func (db *DB) MigrationLock() (func(), error) {
	if db.Dialect != SQLite {
		return func() {}, nil
	}
	unlock, err := db.lockFile()
	if err != nil {
		return nil, fmt.Errorf("lock migrations: %w", err)
	}
	return unlock, nil
}

// lockFile takes the SQLite file's cross-process lock, kept beside it.
// Migrations and the first connections of a process take turns on it.
func (db *DB) lockFile() (func(), error) { return lockFile(db.Path + ".migrate-lock") }
