package store

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
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
	if db.Dialect == SQLite {
		return db.migrateResultsFile(ctx)
	}
	return nil
}

// migrateResultsFile brings SQLite's evaluation results file (DB.Results)
// up to date, from migrations/sqlite-results, a history of its own: a
// change to evaluation_results on SQLite goes there, not in the shared
// history, where the table no longer exists after this. Then it moves
// any results the database still holds into the file (a database from
// before the file, where migration 00030 made the table): copied first,
// skipping what is there, then dropped, so a crash between the two is
// finished by the next start.
func (db *DB) migrateResultsFile(ctx context.Context) error {
	files, err := fs.Sub(migrations, "migrations/sqlite-results")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db.Results, files)
	if err != nil {
		return fmt.Errorf("results file migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate the results file %s: %w", db.ResultsPath, err)
	}
	var n int
	if err := db.W.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'evaluation_results'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	conn, err := db.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE $1 AS results_file`, db.ResultsPath); err != nil {
		return fmt.Errorf("attach the results file: %w", err)
	}
	_, err = conn.ExecContext(ctx, `INSERT OR IGNORE INTO results_file.evaluation_results SELECT id, account_id, agent_id, criteria_id,
		agent_run_id, agent_step_run_id, step_id, evaluation_mode, status, score, flagged, retry_triggered, retry_count, details,
		evaluated_at, created_at FROM main.evaluation_results`)
	if _, derr := conn.ExecContext(ctx, `DETACH DATABASE results_file`); err == nil && derr != nil {
		err = derr
	}
	if err != nil {
		return fmt.Errorf("move evaluation results to %s: %w", db.ResultsPath, err)
	}
	if _, err := conn.ExecContext(ctx, `DROP TABLE main.evaluation_results`); err != nil {
		return fmt.Errorf("move evaluation results to %s: %w", db.ResultsPath, err)
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

// MigrationsDigest identifies the schema the migrations build: a hash of
// every migration file's path and content, for both dialects and the
// results file. Test helpers key migrated template databases by it, so a
// changed migration never reuses a stale template.
func MigrationsDigest() string {
	h := sha256.New()
	_ = fs.WalkDir(migrations, "migrations", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}
