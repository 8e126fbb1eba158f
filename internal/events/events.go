// Package events owns ordered, durable event streams — today, the events of
// an agent run — and their delivery to subscribers on any replica. Every
// event is stored with a per-stream sequence number before it is announced,
// so a subscriber that reconnects from a sequence number reads on without
// gaps or duplicates. Announcements travel by LISTEN/NOTIFY on PostgreSQL
// and in-process on SQLite; subscribers also poll now and then, so a lost
// announcement only delays an event, never drops it.
package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Event is one entry of a stream.
type Event struct {
	StreamID  string
	Seq       int64
	Type      string
	Data      json.RawMessage
	CreatedAt time.Time
}

// Bus appends and delivers events.
type Bus struct {
	db       *store.DB
	hub      *hub
	listener *pgListener // nil on SQLite
	// PollEvery bounds how late an event can be when its announcement was
	// lost (or came from another process on SQLite).
	PollEvery time.Duration
}

// Open returns a bus on db. On PostgreSQL it keeps one listening connection.
func Open(ctx context.Context, db *store.DB) (*Bus, error) {
	b := &Bus{db: db, hub: newHub(), PollEvery: time.Second}
	if db.Dialect == store.Postgres {
		l, err := listenPostgres(ctx, db.URL, b.hub)
		if err != nil {
			return nil, err
		}
		b.listener = l
	}
	return b, nil
}

// Close stops listening.
func (b *Bus) Close() {
	if b.listener != nil {
		b.listener.close()
	}
}

// New describes an event to append.
type New struct {
	Type string
	Data any // marshalled as JSON
}

// Append stores events at the end of a stream, in order, and announces them.
// It returns the sequence number of the last one. Concurrent appends to one
// stream are serialised by the stream's counter row.
func (b *Bus) Append(ctx context.Context, accountID, streamID string, evs ...New) (int64, error) {
	if len(evs) == 0 {
		return 0, nil
	}
	var last int64
	err := b.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		last, err = b.AppendTx(ctx, tx, accountID, streamID, evs...)
		return err
	})
	if err != nil {
		return 0, err
	}
	b.Wake(streamID)
	return last, nil
}

// AppendTx appends within the caller's transaction, so a change and the
// event announcing it commit together. The caller calls Wake after commit.
func (b *Bus) AppendTx(ctx context.Context, tx *sql.Tx, accountID, streamID string, evs ...New) (int64, error) {
	if len(evs) == 0 {
		return 0, nil
	}
	payloads := make([][]byte, len(evs))
	for i, e := range evs {
		p, err := json.Marshal(e.Data)
		if err != nil {
			return 0, err
		}
		payloads[i] = p
	}
	last, err := bumpStream(ctx, tx, b.db.Dialect, accountID, streamID, int64(len(evs)))
	if err != nil {
		return 0, err
	}
	if err := insertEvents(ctx, tx, accountID, streamID, last-int64(len(evs))+1, evs, payloads); err != nil {
		return 0, err
	}
	return last, nil
}

// Wake tells this process's subscribers of a stream to read; other
// replicas hear of it through the database.
func (b *Bus) Wake(streamID string) { b.hub.wake(streamID, 0) }

// Read returns up to limit events of a stream after seq, in order. It is
// scoped to the account, so one account never reads another's stream.
func (b *Bus) Read(ctx context.Context, accountID, streamID string, after int64, limit int) ([]Event, error) {
	return readEvents(ctx, b.db.R, accountID, streamID, after, limit)
}

// LastSeq returns the sequence number of a stream's latest event (0 if none).
func (b *Bus) LastSeq(ctx context.Context, accountID, streamID string) (int64, error) {
	return lastSeq(ctx, b.db.R, accountID, streamID)
}

// Subscribe delivers a stream's events after seq, in order, as they are
// appended, until ctx ends or stop returns true for a delivered event (for a
// run: its terminal event). The channel closes then. A subscriber that falls
// behind is never skipped ahead: it reads from the store at its own pace.
func (b *Bus) Subscribe(ctx context.Context, accountID, streamID string, after int64, stop func(Event) bool) (<-chan Event, <-chan error) {
	out := make(chan Event, 64)
	errc := make(chan error, 1)
	wake, cancel := b.hub.subscribe(streamID)
	go func() {
		defer close(out)
		defer close(errc)
		defer cancel()
		poll := time.NewTicker(b.PollEvery)
		defer poll.Stop()
		for {
			evs, err := b.Read(ctx, accountID, streamID, after, 256)
			if err != nil {
				if ctx.Err() == nil {
					errc <- err
				}
				return
			}
			for _, e := range evs {
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
				after = e.Seq
				if stop != nil && stop(e) {
					return
				}
			}
			if len(evs) == 256 {
				continue // more are waiting
			}
			if !waitForNews(ctx, wake, poll.C, after) {
				return
			}
		}
	}()
	return out, errc
}

// waitForNews waits until the stream may hold events after seq: a wake-up
// that does not say how far the stream is committed, or says beyond seq,
// or the poll. It reports false when ctx ends.
func waitForNews(ctx context.Context, w *wakeup, poll <-chan time.Time, after int64) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-poll:
			return true
		case <-w.c:
			if seq, unknown := w.take(); unknown || seq > after {
				return true
			}
		}
	}
}
