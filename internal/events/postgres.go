package events

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// channel is the NOTIFY channel; the payload is "stream id:last seq".
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
			n.hub.wake(parseAnnouncement(note.Payload))
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

// parseAnnouncement splits a payload into the stream id and the sequence
// number it is committed up to. A payload without one (from a replica of
// an earlier version, which sent the bare id) wakes with an unknown
// sequence, so its subscribers read.
func parseAnnouncement(payload string) (streamID string, seq int64) {
	i := strings.LastIndexByte(payload, ':')
	if i < 0 {
		return payload, 0
	}
	seq, err := strconv.ParseInt(payload[i+1:], 10, 64)
	if err != nil || seq <= 0 {
		return payload, 0
	}
	return payload[:i], seq
}
