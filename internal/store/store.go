// Package store owns persistence: opening SQLite or PostgreSQL, the versioned
// migrations of each dialect, and the repositories every area reads and
// writes through. The SQL is shared between the dialects wherever both
// accept it ($N placeholders, RETURNING, ON CONFLICT); the few differences
// sit behind Dialect, so nothing above this package knows which database runs.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // registers the "sqlite" database/sql driver (no cgo)
)

// Dialect names the database behind a DB.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open database. W serves writes and transactions; R serves plain
// reads. On PostgreSQL they are the same pool. On SQLite W holds a single
// connection, because SQLite admits one writer at a time and a queue in Go is
// cheaper and fairer than connections spinning in the busy handler, while R
// holds several read-only connections that WAL lets run beside the writer.
type DB struct {
	W       *sql.DB
	R       *sql.DB
	Dialect Dialect
	// URL is the PostgreSQL connection string (empty on SQLite); the job
	// queue and the event bus open their own pgx pools from it.
	URL string
	// Path is the SQLite database file (empty on PostgreSQL).
	Path string

	stmts sync.Map // query → *sql.Stmt on R

	// afterJudgmentsRead, when set (by tests), runs between reading
	// journaled judgments and writing them on SQLite.
	afterJudgmentsRead func()
}

// prepared returns a statement on the read pool, prepared once per query
// and reused: parsing the SQL again on every call was the largest cost of
// the hottest requests. database/sql re-prepares it per connection lazily.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := db.stmts.Load(query); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := db.R.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := db.stmts.LoadOrStore(query, s); loaded {
		s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

// Open connects to databaseURL, or, when it is empty, to the SQLite file
// agentry.db in dataDir (created with the directory if missing). It does not
// migrate; call Migrate.
func Open(ctx context.Context, databaseURL, dataDir string) (*DB, error) {
	if databaseURL == "" || strings.HasPrefix(databaseURL, "sqlite:") || strings.HasPrefix(databaseURL, "file:") {
		path := sqlitePath(databaseURL, dataDir)
		return openSQLite(ctx, path)
	}
	if strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://") {
		return openPostgres(ctx, databaseURL)
	}
	return nil, fmt.Errorf("database url %q: want postgres://…, sqlite:PATH, or empty for SQLite in the data directory", redact(databaseURL))
}

func sqlitePath(databaseURL, dataDir string) string {
	switch {
	case strings.HasPrefix(databaseURL, "sqlite:"):
		return strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "//")
	case strings.HasPrefix(databaseURL, "file:"):
		return strings.TrimPrefix(databaseURL, "file:")
	}
	return filepath.Join(dataDir, "agentry.db")
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// immediate transactions take the write lock up front, so a transaction
	// that reads then writes never dead-ends in SQLITE_BUSY on upgrade.
	// busy_timeout comes first: the pragmas run in order, and switching to
	// WAL needs a lock that another process opening the file may hold.
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	w, err := openSQLitePool("file:" + path + "?" + pragmas + "&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := openSQLitePool("file:" + path + "?" + pragmas + "&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	db := &DB{W: w, R: r, Dialect: SQLite, Path: path}
	if err := db.firstConnections(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

// firstConnections opens one connection of each pool while holding the
// file lock beside the database. The first connection to a new file switches
// it to WAL, which needs an exclusive lock; SQLite refuses that at once with
// SQLITE_BUSY, without waiting in the busy handler, when another process is
// opening the same file at that moment. Taking turns here makes replicas that
// start together on one file safe; once the file is in WAL mode the switch
// is a no-op and the lock is held only for an instant.
func (db *DB) firstConnections(ctx context.Context) error {
	unlock, err := db.lockFile()
	if err != nil {
		return fmt.Errorf("lock database file: %w", err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.W.PingContext(ctx); err != nil {
		return err
	}
	return db.Ping(ctx)
}

// openSQLitePool opens a pool whose connections keep their prepared
// statements (sqlitestmts.go).
func openSQLitePool(dsn string) (*sql.DB, error) {
	c, err := newSQLiteConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func openPostgres(ctx context.Context, url string) (*DB, error) {
	p, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	p.SetMaxOpenConns(20)
	p.SetMaxIdleConns(20)
	p.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{W: p, R: p, Dialect: Postgres, URL: url}
	if err := db.Ping(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("connect to postgres %s: %w", redact(url), err)
	}
	return db, nil
}

// Ping checks that the database answers; /readyz calls it.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var one int
	return db.R.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Close closes both pools.
func (db *DB) Close() error {
	db.stmts.Range(func(_, s any) bool { s.(*sql.Stmt).Close(); return true })
	err := db.W.Close()
	if db.R != db.W {
		err = errors.Join(err, db.R.Close())
	}
	return err
}

// Tx runs fn in a transaction on the write pool, committing when fn returns nil.
func (db *DB) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// TxConn is Tx that also hands fn the connection the transaction runs
// on, for a library that writes through its own driver and must join the
// transaction (the job queue inserting a run's job with the run).
func (db *DB) TxConn(ctx context.Context, fn func(tx *sql.Tx, conn *sql.Conn) error) error {
	conn, err := db.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx, conn); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// redact hides a password in a connection string for messages.
func redact(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 {
		return url
	}
	creds := url[scheme+3 : at]
	if c := strings.Index(creds, ":"); c >= 0 {
		return url[:scheme+3] + creds[:c] + ":***" + url[at:]
	}
	return url
}

// Now is the store's clock: UTC at microsecond precision, the precision both
// databases keep, so a value read back equals the value written.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// lockFor is a row-locking clause ("UPDATE", "SHARE") for PostgreSQL, and
// nothing on SQLite, whose write transaction already excludes every other
// writer.
func (db *DB) lockFor(mode string) string {
	if db.Dialect == Postgres {
		return " FOR " + mode
	}
	return ""
}
