package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// A test's database is a copy of a template that was migrated once: the
// store's migrations and the job queue's, everything `agentry serve` runs
// on start. Migrating takes 40 ms on SQLite and 1–2 s on PostgreSQL;
// copying the template takes a millisecond (a file copy) and a fraction of
// a second (CREATE DATABASE … TEMPLATE). Templates are named by a digest
// of the migrations and River's version, so they are shared by every test
// process of a run (and kept for the next run) and never reused stale.

// templateKey names the current schema: the store's migrations and River's.
var templateKey = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(store.MigrationsDigest()))
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if strings.HasPrefix(m.Path, "github.com/riverqueue/river") {
				fmt.Fprintf(h, "\x00%s@%s", m.Path, m.Version)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
})

// migrateAll runs everything a server's start migrates.
func migrateAll(ctx context.Context, db *store.DB) error {
	if err := db.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	q, err := jobs.Open(ctx, db, river.NewWorkers(), jobs.Config{}) // enqueue only: migrates River's tables
	if err != nil {
		return fmt.Errorf("migrate the job queue: %w", err)
	}
	return q.Stop(ctx)
}

// sqliteFiles are the files of an SQLite database at rest: the database and
// its evaluation results file (see store.Open).
var sqliteFiles = []string{"agentry.db", "agentry.results.db"}

var (
	sqliteTemplateOnce sync.Once
	sqliteTemplateDir  string
	sqliteTemplateErr  error
)

// sqliteTemplate returns the directory of the migrated SQLite template,
// building it the first time: in a directory of its own, renamed into
// place when complete, so that concurrent test processes never see half a
// template (the loser of a race removes its copy).
func sqliteTemplate() (string, error) {
	sqliteTemplateOnce.Do(func() {
		dir := filepath.Join(os.TempDir(), "agentry-storetest-sqlite-"+templateKey())
		if _, err := os.Stat(filepath.Join(dir, sqliteFiles[0])); err == nil {
			sqliteTemplateDir = dir
			return
		}
		build, err := os.MkdirTemp(os.TempDir(), "agentry-storetest-build-")
		if err != nil {
			sqliteTemplateErr = err
			return
		}
		defer os.RemoveAll(build) // a no-op once renamed
		if err := buildSQLiteTemplate(build); err != nil {
			sqliteTemplateErr = fmt.Errorf("build the SQLite template: %w", err)
			return
		}
		if err := os.Rename(build, dir); err != nil {
			if _, serr := os.Stat(filepath.Join(dir, sqliteFiles[0])); serr != nil {
				sqliteTemplateErr = err
				return
			}
		}
		sqliteTemplateDir = dir
	})
	return sqliteTemplateDir, sqliteTemplateErr
}

func buildSQLiteTemplate(dir string) error {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, sqliteFiles[0]), "")
	if err != nil {
		return err
	}
	if err := migrateAll(ctx, db); err != nil {
		db.Close()
		return err
	}
	// Everything into the database files, so that they alone are the
	// template: closing the last connection checkpoints the write-ahead log
	// and removes it.
	db.Close()
	for _, f := range sqliteFiles {
		if st, err := os.Stat(filepath.Join(dir, f+"-wal")); err == nil && st.Size() > 0 {
			return fmt.Errorf("%s-wal is left after closing", f)
		}
	}
	for _, name := range []string{".migrate-lock"} {
		_ = os.Remove(filepath.Join(dir, sqliteFiles[0]+name))
	}
	return nil
}

// cloneSQLite copies the template into dir and returns the database's path.
func cloneSQLite(dir string) (string, error) {
	tmpl, err := sqliteTemplate()
	if err != nil {
		return "", err
	}
	for _, f := range sqliteFiles {
		if err := copyFile(filepath.Join(tmpl, f), filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, sqliteFiles[0]), nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// pgServer is the PostgreSQL server of SERVICE_TEST_DATABASE_URL: a
// connection pool to the database it names, where databases are created
// and dropped, and the name of the migrated template.
type pgServer struct {
	base     *url.URL
	admin    *sql.DB
	template string
}

var (
	pgOnce sync.Once
	pg     *pgServer
	pgErr  error
)

// postgres returns the test server, building its template database the
// first time any test process of this schema needs it.
func postgres(raw string) (*pgServer, error) {
	pgOnce.Do(func() { pg, pgErr = openPGServer(raw) })
	return pg, pgErr
}

// pgTemplateLock serialises template builds across test processes.
const pgTemplateLock = 7_361_902_115

func openPGServer(raw string) (*pgServer, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvDatabaseURL, err)
	}
	baseName := strings.TrimPrefix(u.Path, "/")
	if baseName == "" {
		return nil, fmt.Errorf("%s names no database", EnvDatabaseURL)
	}
	admin, err := sql.Open("pgx", raw)
	if err != nil {
		return nil, err
	}
	admin.SetMaxOpenConns(4)
	s := &pgServer{base: u, admin: admin, template: pgName(baseName, "tpl_"+templateKey())}
	if err := s.ensureTemplate(context.Background()); err != nil {
		admin.Close()
		return nil, err
	}
	return s, nil
}

// pgName builds a database name from the base database's, within
// PostgreSQL's 63 bytes.
func pgName(base, suffix string) string {
	if max := 63 - len(suffix) - 1; len(base) > max {
		base = base[:max]
	}
	return base + "_" + suffix
}

// ensureTemplate builds the template database unless it exists: under an
// advisory lock, as a database of another name renamed when complete.
func (s *pgServer) ensureTemplate(ctx context.Context) error {
	conn, err := s.admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, pgTemplateLock); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, pgTemplateLock) //nolint:errcheck // released with the session anyway
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, s.template).Scan(&n); err != nil || n == 1 {
		return err
	}
	build := pgName(strings.TrimPrefix(s.base.Path, "/"), "tpb_"+randomSuffix())
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+build); err != nil {
		return fmt.Errorf("create the template database (the role of %s needs CREATEDB): %w", EnvDatabaseURL, err)
	}
	if err := s.migrateTemplate(ctx, build); err != nil {
		_, _ = conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+build+` WITH (FORCE)`)
		return fmt.Errorf("build the PostgreSQL template: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+build+` RENAME TO `+s.template); err != nil {
		_, _ = conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+build+` WITH (FORCE)`)
		return err
	}
	return nil
}

func (s *pgServer) migrateTemplate(ctx context.Context, name string) error {
	db, err := store.Open(ctx, s.urlOf(name), "")
	if err != nil {
		return err
	}
	defer db.Close()
	// The vector extension, where the server has it, as the knowledge
	// area would create it on start; without it the area falls back.
	_, _ = db.W.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS vector SCHEMA public`)
	return migrateAll(ctx, db)
}

// urlOf is the URL of database name on the test server.
func (s *pgServer) urlOf(name string) string {
	u := *s.base
	u.Path = "/" + name
	return u.String()
}

// create makes a database for one test, a copy of the template (or empty)
// and returns its name.
func (s *pgServer) create(ctx context.Context, empty bool) (string, error) {
	name := pgName(strings.TrimPrefix(s.base.Path, "/"), "t_"+randomSuffix())
	stmt := `CREATE DATABASE ` + name + ` TEMPLATE ` + s.template
	if empty {
		stmt = `CREATE DATABASE ` + name
	}
	// Copying a template fails while another session is connected to it;
	// none should be, but a template build's last connection may still be
	// closing.
	var err error
	for i := 0; i < 50; i++ {
		if _, err = s.admin.ExecContext(ctx, stmt); err == nil || !strings.Contains(err.Error(), "is being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return "", fmt.Errorf("create a test database: %w", err)
	}
	return name, nil
}

func (s *pgServer) drop(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	return err
}

func randomSuffix() string {
	b := make([]byte, 10)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		panic(errors.Join(errors.New("storetest: random name"), err))
	}
	return hex.EncodeToString(b)
}
