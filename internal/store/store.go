// Package store owns what every area's persistence shares: opening SQLite
// or PostgreSQL, the versioned migrations of each dialect, transactions,
// and the helpers an area's repository (its repo*.go, beside its service)
// queries and scans with (repo.go). Every area's own SQL sits beside its
// service, and what other areas need of its tables is in its leaf package
// (agentrow, runrow, evalrow, solutionrow, knowledgerow, ledgerrow, and
// the accounts area's directory), which takes their querier or
// transaction; what SQL stays here is the migrations' (migrate.go) and
// the process-wide settings (settings.go).
// The SQL is shared between the dialects wherever both accept it ($N
// placeholders, RETURNING, ON CONFLICT); the few differences of SQL sit
// behind Dialect, so the areas' services do not know which database runs.
// Four packages above this one do, each for a part the two databases offer
// differently, not for SQL: jobs (River's driver for each), events
// (LISTEN/NOTIFY on PostgreSQL, delivery in process on SQLite), knowledge
// (pgvector when PostgreSQL has it, else the in-process vector index; and
// its full-text index re-reads recent sequence numbers on PostgreSQL, whose
// transactions may commit them out of order) and server (a secrets key file
// is worth a warning on PostgreSQL, where replicas on other hosts cannot
// share it).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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
	W *sql.DB
	R *sql.DB
	// Results writes evaluation results. On PostgreSQL it is W. On SQLite
	// the results live in a file of their own beside the database
	// (ResultsPath), so copying judged runs' results into them
	// (judgments.go) takes a writer of its own instead of the one every
	// run waits for: Results holds that file's single writing connection,
	// and R's connections attach the file as "results", so reads join
	// evaluation_results to the main tables unqualified, as on PostgreSQL.
	// W does not attach it: an immediate transaction would take the
	// write lock of every attached file.
	Results *sql.DB
	Dialect Dialect
	// URL is the PostgreSQL connection string (empty on SQLite); the job
	// queue and the event bus open their own pgx pools from it.
	URL string
	// Path is the SQLite database file (empty on PostgreSQL).
	Path string
	// ResultsPath is the SQLite evaluation results file (see Results).
	ResultsPath string

	stmts sync.Map // query → *sql.Stmt on R

	checkpointers []*checkpointer // SQLite: one per file
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
		if err := checkSQLitePath(databaseURL, path); err != nil {
			return nil, err
		}
		return openSQLite(ctx, path)
	}
	if strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://") {
		return openPostgres(ctx, databaseURL)
	}
	return nil, fmt.Errorf("database url %q: want postgres://…, sqlite:PATH, or empty for SQLite in the data directory", redact(databaseURL))
}

// resultsPath names the evaluation results file of the SQLite database at
// path (see DB.Results): agentry.db keeps them in agentry.results.db.
func resultsPath(path string) string {
	if base, ok := strings.CutSuffix(path, ".db"); ok {
		return base + ".results.db"
	}
	return path + ".results"
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

// checkSQLitePath refuses what sqlite:PATH cannot be: a path with
// parameters (Agentry sets the SQLite settings it needs itself) or an
// in-memory database, which each of the server's connections would see as
// a different, empty one.
func checkSQLitePath(databaseURL, path string) error {
	switch {
	case path == "":
		return fmt.Errorf("database url %q: sqlite: needs the path of a file, e.g. sqlite:/var/lib/agentry/agentry.db", databaseURL)
	case path == ":memory:" || strings.HasPrefix(path, ":memory:?"):
		return fmt.Errorf("database url %q: an in-memory SQLite database is not supported (the server's connections would each see a different one); use a file, e.g. sqlite:/tmp/agentry/agentry.db", databaseURL)
	case databaseURL != "" && strings.ContainsRune(path, '?'):
		return fmt.Errorf("database url %q: sqlite:PATH takes a file path without ?parameters (Agentry sets the SQLite settings it needs)", databaseURL)
	}
	return nil
}

// sqliteDSN is the driver's name for the file at path, opened with params:
// a "file:" URI, in which a path's '%', '?' and '#' would be read as an
// escape, the parameters and a fragment, so they are escaped (a data
// directory named "C#" is a directory like any other).
func sqliteDSN(path, params string) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
	return "file:" + escaped + "?" + params
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
	// The writers checkpoint only as a backstop (see checkpointer).
	writer := pragmas + "&_txlock=immediate&_pragma=wal_autocheckpoint(" + itoa(walBackstopPages) + ")"
	w, err := openSQLitePool(sqliteDSN(path, writer), "")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	rpath := resultsPath(path)
	results, err := openSQLitePool(sqliteDSN(rpath, writer), "")
	if err != nil {
		w.Close()
		return nil, err
	}
	results.SetMaxOpenConns(1)
	results.SetConnMaxIdleTime(0)
	r, err := openSQLitePool(sqliteDSN(path, pragmas+"&_pragma=query_only(1)"), rpath)
	if err != nil {
		w.Close()
		results.Close()
		return nil, err
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	db := &DB{W: w, R: r, Results: results, Dialect: SQLite, Path: path, ResultsPath: rpath}
	if err := db.firstConnections(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	for _, file := range []string{path, rpath} {
		c, err := startCheckpointer(sqliteDSN(file, pragmas), file)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open sqlite %s: %w", file, err)
		}
		db.checkpointers = append(db.checkpointers, c)
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
	// The results file before the readers that attach it: its first
	// connection switches it to WAL, as W's does the database.
	if err := db.W.PingContext(ctx); err != nil {
		return err
	}
	if err := db.Results.PingContext(ctx); err != nil {
		return err
	}
	return db.Ping(ctx)
}

// openSQLitePool opens a pool whose connections keep their prepared
// statements (sqlitestmts.go), each attaching the file attach if set.
func openSQLitePool(dsn, attach string) (*sql.DB, error) {
	c, err := newSQLiteConnector(dsn, attach)
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
	db := &DB{W: p, R: p, Results: p, Dialect: Postgres, URL: url}
	if err := db.ping(ctx, firstConnectTimeout); err != nil {
		p.Close()
		return nil, fmt.Errorf("connect to postgres %s: %w", redact(url), err)
	}
	return db, nil
}

// firstConnectTimeout bounds the first connection Open makes. It is longer
// than a readiness probe's: a server starting on a busy host, or a database
// just started beside it, may take seconds to fork and initialise its first
// session, and refusing to start then would be wrong; a database that has
// not answered in 15 s is not coming.
const firstConnectTimeout = 15 * time.Second

// Ping checks that the database answers within 2 s; /readyz calls it.
func (db *DB) Ping(ctx context.Context) error { return db.ping(ctx, 2*time.Second) }

func (db *DB) ping(ctx context.Context, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	var one int
	return db.R.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Close closes the pools.
func (db *DB) Close() error {
	for _, c := range db.checkpointers {
		c.Close()
	}
	db.stmts.Range(func(_, s any) bool { s.(*sql.Stmt).Close(); return true })
	err := db.W.Close()
	if db.R != db.W {
		err = errors.Join(err, db.R.Close())
	}
	if db.Results != nil && db.Results != db.W {
		err = errors.Join(err, db.Results.Close())
	}
	return err
}

// Tx runs fn in a transaction on the write pool, committing when fn returns nil.
func (db *DB) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	defer db.passWriter()
	return inTx(ctx, db.W, fn)
}

// passWriter lets whoever waits for SQLite's one writer take it at once.
// Releasing the connection readies the goroutine that waits for it to run
// next on this goroutine's processor, but only after this goroutine stops,
// and what it does after a commit (answering, streaming) may take a while;
// until then the writer, which sets the pace of every run, sits idle.
// Yielding here hands it over. With 128 clients on 2 cores it raised the
// 5-step agent's runs per second by 14–28% (bench/oversightload, 4
// interleaved pairs; docs/performance.md).
func (db *DB) passWriter() {
	if db.Dialect == SQLite {
		runtime.Gosched()
	}
}

// resultsTx is Tx on Results: on SQLite the evaluation results file's own
// writer.
func (db *DB) resultsTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return inTx(ctx, db.Results, fn)
}

func inTx(ctx context.Context, pool *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := pool.BeginTx(ctx, nil)
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
	defer db.passWriter() // after the connection is back
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

// placeholders returns "$from, …" for n parameters.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + itoa(from+i))
	}
	return b.String()
}

// rowsAffected is how many rows an ExecContext changed.
func rowsAffected(res sql.Result, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func itoa(n int) string { return strconv.Itoa(n) }
