package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// The bus's persistence: a stream's counter row (event_streams) and its
// events (events), read and written only here.

// bumpStream advances a stream's counter by n within tx and returns its
// new last sequence number. Concurrent appends to one stream are
// serialised by the counter's row.
func bumpStream(ctx context.Context, tx *sql.Tx, d store.Dialect, accountID, streamID string, n int64) (int64, error) {
	var last int64
	if d == store.Postgres {
		// The announcement rides on the counter's statement (one round
		// trip less); it is sent on commit, to every replica's listener.
		var sent string
		err := tx.QueryRowContext(ctx, `INSERT INTO event_streams (stream_id, account_id, last_seq) VALUES ($1, $2, $3)
			ON CONFLICT (stream_id) DO UPDATE SET last_seq = event_streams.last_seq + $3
			RETURNING last_seq, pg_notify($4, stream_id || ':' || last_seq)::text`,
			streamID, accountID, n, channel).Scan(&last, &sent)
		return last, err
	}
	err := tx.QueryRowContext(ctx, `INSERT INTO event_streams (stream_id, account_id, last_seq) VALUES ($1, $2, $3)
		ON CONFLICT (stream_id) DO UPDATE SET last_seq = event_streams.last_seq + $3 RETURNING last_seq`,
		streamID, accountID, n).Scan(&last)
	return last, err
}

// insertEvents stores evs (their data marshalled in payloads) under the
// sequence numbers from first on. One statement a batch: a statement per
// event was a fair share of a run's database work (each a round trip on
// PostgreSQL).
func insertEvents(ctx context.Context, tx *sql.Tx, accountID, streamID string, first int64, evs []New, payloads [][]byte) error {
	now := store.Now()
	for start := 0; start < len(evs); start += maxEventsPerInsert {
		chunk := evs[start:min(start+maxEventsPerInsert, len(evs))]
		args := make([]any, 0, 3+3*len(chunk))
		args = append(args, streamID, accountID, now)
		for i, e := range chunk {
			args = append(args, first+int64(start+i), e.Type, string(payloads[start+i]))
		}
		if _, err := tx.ExecContext(ctx, insertEventsSQL(len(chunk)), args...); err != nil {
			return err
		}
	}
	return nil
}

// maxEventsPerInsert bounds the rows of one insert (and its placeholders,
// well under both databases' limits).
const maxEventsPerInsert = 64

// insertEventsSQL is the insert of n events of one stream: $1 stream, $2
// account and $3 time are shared, then seq, type and data per event.
var insertEventsSQL = func() func(n int) string {
	var texts [maxEventsPerInsert + 1]string
	for n := 1; n <= maxEventsPerInsert; n++ {
		var b strings.Builder
		b.WriteString(`INSERT INTO events (stream_id, seq, account_id, type, data, created_at) VALUES `)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			p := 4 + 3*i
			fmt.Fprintf(&b, "($1, $%d, $2, $%d, $%d, $3)", p, p+1, p+2)
		}
		texts[n] = b.String()
	}
	return func(n int) string { return texts[n] }
}()

// readEvents returns up to limit events of a stream after seq, in order,
// scoped to the account.
func readEvents(ctx context.Context, q store.Querier, accountID, streamID string, after int64, limit int) ([]Event, error) {
	return store.All(ctx, q, func(r store.Scanner) (Event, error) {
		e := Event{StreamID: streamID}
		var data string
		err := r.Scan(&e.Seq, &e.Type, &data, &e.CreatedAt)
		e.Data = json.RawMessage(data)
		return e, err
	}, `SELECT seq, type, data, created_at FROM events
		WHERE stream_id = $1 AND account_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`, streamID, accountID, after, limit)
}

// lastSeq returns the sequence number of a stream's latest event (0 if
// none).
func lastSeq(ctx context.Context, q store.Querier, accountID, streamID string) (int64, error) {
	var last int64
	err := q.QueryRowContext(ctx, `SELECT last_seq FROM event_streams WHERE stream_id = $1 AND account_id = $2`, streamID, accountID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return last, err
}
