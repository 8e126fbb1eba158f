// Package jobs owns the durable job queue: River on the same database as
// everything else (riversqlite embedded, riverpgxv5 when scaled out), the
// registry of job kinds, and the worker lifecycle. Areas add their kinds to
// the Workers they are given; nothing above this package sees River's
// database-specific generic types.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// Config tunes the queue.
type Config struct {
	// Work says whether this process runs workers (role worker or all) or
	// only enqueues (role api).
	Work bool
	// MaxWorkers bounds concurrent jobs of the default queue (runs and
	// everything someone waits on).
	MaxWorkers int
	// BackgroundWorkers bounds concurrent jobs of QueueBackground (4 when
	// zero).
	BackgroundWorkers int
	// AccountSharePercent is the share of each queue's workers one account's
	// jobs may hold at once in this process; 0 or 100: no cap.
	AccountSharePercent int
	// JobTimeout bounds one attempt of a job; RescueAfter is how long a job
	// may sit in running (its process died) before it is retried.
	JobTimeout  time.Duration
	RescueAfter time.Duration
	// RescueInterval, when below River's fixed 30 s (RiverRescueInterval),
	// has every worker process also look for such jobs this often
	// (rescue.go). Zero: River's rescuer alone.
	RescueInterval time.Duration
	// OwnTimeoutKinds are the job kinds whose workers set their own
	// timeout or backoff; the sweep of RescueInterval leaves them to
	// River's rescuer, which knows them.
	OwnTimeoutKinds []string
	// PollInterval is how often idle workers look for new jobs on SQLite,
	// which has no LISTEN/NOTIFY.
	PollInterval time.Duration
	// Periodic jobs run on the elected leader only, so a schedule fires
	// once however many replicas run.
	Periodic []*river.PeriodicJob
	// CancelGrace is how long Stop waits, once it has cancelled the jobs
	// still running, for their workers to record where they stopped
	// (10s when zero).
	CancelGrace time.Duration
	// Telemetry is put in every job's context; jobs carry the trace
	// context they were enqueued from (telemetry.go). Nil: none.
	Telemetry *telemetry.T
}

// Enqueuer is what the areas' services need of the queue: inserting a job
// on its own or within a store transaction. *Queue implements it; the
// server hands services an Enqueuer because they are built before the
// queue, which is opened with their workers (internal/server/late.go).
type Enqueuer interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error)
	InsertTx(ctx context.Context, tx *sql.Tx, conn *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (wake func(), err error)
}

// Queue enqueues jobs and, when configured to work, runs them.
type Queue struct {
	insert        func(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	insertTx      func(ctx context.Context, tx *sql.Tx, conn *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (wake func(), err error)
	start         func(ctx context.Context) error
	stop          func(ctx context.Context) error
	stopAndCancel func(ctx context.Context) error
	retry         func(ctx context.Context, id int64) (*rivertype.JobRow, error)
	close         func()
	work          bool
	cancelGrace   time.Duration
	interrupted   *interruptions
	depth         *depthCollector
	// sweep, when set, runs from Start to Stop every sweepEvery.
	sweep      *rescueSweep
	sweepEvery time.Duration
	sweepStop  context.CancelFunc
	sweepDone  chan struct{}
}

// Open migrates River's tables and builds a client on db.
func Open(ctx context.Context, db *store.DB, workers *river.Workers, cfg Config) (*Queue, error) {
	rc := &river.Config{
		Logger:               slog.New(quietShutdown{slog.Default().Handler()}),
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval:    cfg.PollInterval,
	}
	if rc.FetchPollInterval <= 0 {
		rc.FetchPollInterval = 250 * time.Millisecond
	}
	// An insert wakes the workers at once (LISTEN/NOTIFY on PostgreSQL, in
	// process on SQLite), but River lets a queue fetch at most once per
	// cooldown, and a wake-up within it waits for its end: at River's
	// default of 100 ms, a run started just after another waited that long
	// for a worker, while the run itself takes about 10 ms. 5 ms keeps a
	// busy queue's fetches (each a write) to 200 a second, each taking as
	// many jobs as there are free workers. Polling remains the fallback.
	rc.FetchCooldown = min(fetchCooldown, rc.FetchPollInterval)
	if cfg.Work {
		if cfg.MaxWorkers <= 0 {
			cfg.MaxWorkers = 16
		}
		if cfg.BackgroundWorkers <= 0 {
			cfg.BackgroundWorkers = 4
		}
		rc.Queues = map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.MaxWorkers},
			QueueBackground:    {MaxWorkers: cfg.BackgroundWorkers},
		}
		rc.Workers = workers
		rc.PeriodicJobs = cfg.Periodic
	}
	stops := &interruptions{}
	share := newAccountShare(map[string]int{
		river.QueueDefault: shareOf(cfg.MaxWorkers, cfg.AccountSharePercent),
		QueueBackground:    shareOf(cfg.BackgroundWorkers, cfg.AccountSharePercent),
	})
	// The share comes first (outermost): a job put back for another
	// account's is not counted as worked.
	rc.Middleware = append(rc.Middleware, share, &traced{t: cfg.Telemetry}, stops)
	switch db.Dialect {
	case store.SQLite:
		unlock, err := db.MigrationLock()
		if err != nil {
			return nil, err
		}
		defer unlock()
		q, exec, err := openSQLite(ctx, db.W, rc, cfg.Work)
		return q.with(db, cfg, stops, exec), err
	case store.Postgres:
		q, exec, err := openPostgres(ctx, db.URL, rc, cfg.Work)
		return q.with(db, cfg, stops, exec), err
	}
	return nil, fmt.Errorf("jobs: unsupported dialect %q", db.Dialect)
}

func (q *Queue) with(db *store.DB, cfg Config, stops *interruptions, exec riverdriver.Executor) *Queue {
	if q == nil {
		return nil
	}
	q.cancelGrace, q.interrupted, q.depth = cfg.CancelGrace, stops, newDepthCollector(db)
	if q.cancelGrace <= 0 {
		q.cancelGrace = 10 * time.Second
	}
	if cfg.Work && cfg.RescueInterval > 0 && cfg.RescueInterval < RiverRescueInterval {
		rescueAfter := cfg.RescueAfter
		if rescueAfter <= 0 { // River's default: the job timeout and an hour
			rescueAfter = max(cfg.JobTimeout, 0) + time.Hour
		}
		q.sweep = &rescueSweep{exec: exec, rescueAfter: rescueAfter, ownTimeout: cfg.OwnTimeoutKinds}
		q.sweepEvery = cfg.RescueInterval
	}
	return q
}

func openSQLite(ctx context.Context, db *sql.DB, rc *river.Config, work bool) (*Queue, riverdriver.Executor, error) {
	base := riversqlite.New(db)
	m, err := rivermigrate.New(base, nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, nil, fmt.Errorf("migrate job queue: %w", err)
	}
	rc.PollOnly = true
	drv := newSQLiteDriver(base)
	c, err := river.NewClient[*sql.Tx](drv, rc)
	if err != nil {
		return nil, nil, err
	}
	insertTx := func(ctx context.Context, tx *sql.Tx, _ *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (func(), error) {
		res, err := c.InsertTx(ctx, tx, args, opts)
		if err != nil {
			return nil, err
		}
		return func() { drv.pilot.wake(res) }, nil
	}
	start := func(ctx context.Context) error {
		if err := c.Start(ctx); err != nil {
			return err
		}
		drv.pilot.started.Store(true)
		return nil
	}
	return &Queue{insert: c.Insert, insertTx: insertTx, start: start, stop: c.Stop, stopAndCancel: c.StopAndCancel, retry: c.JobRetry, close: func() {}, work: work}, base.GetExecutor(), nil
}

// fetchCooldown is the least time between two fetches of a queue.
const fetchCooldown = 5 * time.Millisecond

// riverMigrationLock serialises River's migrations across replicas starting at once.
const riverMigrationLock = 7_361_902_114

func openPostgres(ctx context.Context, url string, rc *river.Config, work bool) (*Queue, riverdriver.Executor, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	drv := riverpgxv5.New(pool)
	m, err := rivermigrate.New(drv, nil)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	if err := migratePostgres(ctx, pool, m); err != nil {
		pool.Close()
		return nil, nil, err
	}
	c, err := river.NewClient(drv, rc)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	// The store's transaction runs on a database/sql connection of the
	// pgx driver: River inserts on that connection, within it. The insert
	// also queues a NOTIFY, sent on commit, that wakes the workers of every
	// replica (this one's included); nothing is left to wake after.
	insertTx := func(ctx context.Context, _ *sql.Tx, conn *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (func(), error) {
		err := conn.Raw(func(dc any) error {
			sc, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("jobs: the store's connection is a %T, not pgx's", dc)
			}
			_, err := c.InsertTx(ctx, heldTx{sc.Conn()}, args, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		return func() {}, nil
	}
	return &Queue{insert: c.Insert, insertTx: insertTx, start: c.Start, stop: c.Stop, stopAndCancel: c.StopAndCancel, retry: c.JobRetry, close: pool.Close, work: work}, drv.GetExecutor(), nil
}

// Insert enqueues a job.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error) {
	res, err := q.insert(ctx, args, opts)
	if err != nil {
		return nil, err
	}
	return res.Job, nil
}

// InsertTx enqueues a job within the store transaction tx, which runs on
// conn (store.DB.TxConn): the job exists exactly when the caller's changes
// do, so no crash can leave one without the other. Call wake once tx has
// committed, to have this process's workers fetch the job at once.
func (q *Queue) InsertTx(ctx context.Context, tx *sql.Tx, conn *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (wake func(), err error) {
	return q.insertTx(ctx, tx, conn, args, opts)
}

// Start runs the workers until Stop (a no-op for an enqueue-only queue).
func (q *Queue) Start(ctx context.Context) error {
	if !q.work {
		return nil
	}
	if err := q.start(ctx); err != nil {
		return err
	}
	if q.sweep != nil && q.sweepStop == nil {
		sctx, stop := context.WithCancel(ctx)
		q.sweepStop, q.sweepDone = stop, make(chan struct{})
		go func() {
			defer close(q.sweepDone)
			q.sweep.run(sctx, q.sweepEvery)
		}()
	}
	return nil
}

// Stop stops taking new jobs and lets running ones finish until ctx ends.
// Jobs still running then are cancelled: their workers see their contexts
// end, record where they stopped, and return; Stop waits for that (up to
// CancelGrace) so that nothing writes to a closed database, and makes the
// interrupted jobs available again at once, so the next process to start
// resumes them instead of waiting for the rescuer. Then the queue closes.
func (q *Queue) Stop(ctx context.Context) error {
	defer q.close()
	if !q.work {
		return nil
	}
	if q.sweepStop != nil { // before the jobs stop: it must not rescue an interrupted one
		q.sweepStop()
		<-q.sweepDone
	}
	err := q.stop(ctx)
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	q.interrupted.stopping.Store(true)
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.cancelGrace)
	defer cancel()
	if err := q.stopAndCancel(hard); err != nil {
		return fmt.Errorf("jobs still running %v after they were cancelled: %w", q.cancelGrace, err)
	}
	for _, id := range q.interrupted.list() {
		if _, err := q.retry(hard, id); err != nil {
			slog.Warn("make an interrupted job available again", "job", id, "err", err)
		}
	}
	return nil
}

// interruptions notes the jobs that end in error because Stop cancelled
// them, to make them available again once their errors are recorded.
type interruptions struct {
	river.WorkerMiddlewareDefaults
	stopping atomic.Bool
	mu       sync.Mutex
	ids      []int64
}

func (m *interruptions) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	if err != nil && ctx.Err() != nil && m.stopping.Load() {
		m.mu.Lock()
		m.ids = append(m.ids, job.ID)
		m.mu.Unlock()
	}
	return err
}

func (m *interruptions) list() []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int64(nil), m.ids...)
}

// migratePostgres runs River's migrations under a session advisory lock, so
// replicas starting together take turns. Each River version runs in its own
// transaction, as River requires: one version adds an enum value that a
// later statement uses, which PostgreSQL only allows after a commit.
func migratePostgres(ctx context.Context, pool *pgxpool.Pool, m *rivermigrate.Migrator[pgx.Tx]) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, riverMigrationLock); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, riverMigrationLock) //nolint:errcheck // released with the session anyway
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate job queue: %w", err)
	}
	return nil
}
