package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"time"
)

// In WAL mode SQLite copies committed pages from the WAL back into the
// database file in checkpoints. By default the commit that takes the WAL
// past 1000 pages runs one itself, so the database's single writer, which
// every run of the server waits for, stops for the checkpoint's page
// writes and fsyncs every few dozen runs. A checkpointer of our own runs
// them beside the writer instead, on a connection of its own: WAL lets a
// checkpoint proceed while the writer appends. With 128 clients on 2
// cores it raised the 5-step agent's runs per second by 15–33%
// (bench/oversightload, 4 interleaved pairs; docs/performance.md).
//
// The writer still checkpoints if the WAL grows to walBackstopPages, so a
// checkpointer that falls behind (a reader holding an old snapshot, a slow
// disk) costs the WAL's size a bound, never the data.

const (
	checkpointEvery  = 50 * time.Millisecond
	walBackstopPages = 10000 // 40 MB of 4 KiB pages
)

// checkpointer runs PASSIVE checkpoints of one SQLite file until closed.
type checkpointer struct {
	stop context.CancelFunc
	done chan struct{}
}

// startCheckpointer checkpoints the file dsn names every checkpointEvery;
// name labels it in logs.
func startCheckpointer(dsn, name string) (*checkpointer, error) {
	pool, err := openSQLitePool(dsn, "")
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(1)
	pool.SetConnMaxIdleTime(0)
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{stop: cancel, done: make(chan struct{})}
	go c.run(ctx, pool, name)
	return c, nil
}

func (c *checkpointer) run(ctx context.Context, pool *sql.DB, name string) {
	defer close(c.done)
	defer pool.Close()
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var warned time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := pool.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		// Another checkpoint under way (another process on the same file,
		// or the writer's backstop) makes this one busy: the next tick
		// goes on where it stopped.
		if err == nil || ctx.Err() != nil || sqliteBusy(err) {
			continue
		}
		if time.Since(warned) > time.Minute {
			slog.Warn("checkpointing the SQLite WAL; the writer checkpoints itself meanwhile", "file", name, "err", err)
			warned = time.Now()
		}
	}
}

// Close stops the checkpointer and waits for it to end.
func (c *checkpointer) Close() {
	if c != nil {
		c.stop()
		<-c.done
	}
}

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY.
func sqliteBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}
