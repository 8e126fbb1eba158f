package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// channel is the NOTIFY channel; the payload is the stream id.
const channel = "agentry_events"

// pgListener LISTENs on a dedicated connection, reconnecting if it drops,
// and wakes the local hub for every stream announced by any replica.
type pgListener struct {
	url    string
	hub    *hub
	cancel context.CancelFunc
	done   chan struct{}
}

func listenPostgres(ctx context.Context, url string, h *hub) (*pgListener, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	n := &pgListener{url: url, hub: h, cancel: cancel, done: make(chan struct{})}
	go n.listen(lctx, conn)
	return n, nil
}

func (n *pgListener) listen(ctx context.Context, conn *pgx.Conn) {
	defer close(n.done)
	for {
		for {
			note, err := conn.WaitForNotification(ctx)
			if err != nil {
				break
			}
			n.hub.wake(note.Payload)
		}
		conn.Close(context.Background())
		if ctx.Err() != nil {
			return
		}
		// Reconnect; subscribers keep polling meanwhile.
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			c, err := pgx.Connect(ctx, n.url)
			if err != nil {
				slog.Warn("event listener reconnect", "err", err)
				continue
			}
			if _, err := c.Exec(ctx, "LISTEN "+channel); err != nil {
				c.Close(ctx)
				continue
			}
			conn = c
			break
		}
	}
}

func (n *pgListener) close() {
	n.cancel()
	<-n.done
}
