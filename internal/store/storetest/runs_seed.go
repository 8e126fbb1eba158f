package storetest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// SeedRuns writes n finished-looking runs of accountID straight into the
// runs table, spread evenly over the span before end and over agents, for
// benchmarks and tests of lists at scale (100,000 runs in seconds, where
// executing them would take minutes). Each has an id minted for its
// creation time, as store.NewID would have; about 90% completed, 7% failed,
// the rest processing; 80% dynamic_input, 15% schedule, 5% call_agent. It
// returns the ids, oldest first.
func SeedRuns(tb testing.TB, db *store.DB, accountID string, agents []string, n int, end time.Time, span time.Duration) []string {
	tb.Helper()
	// PostgreSQL takes many rows a statement best; SQLite one row a
	// statement, prepared once (store keeps it) and run in one transaction:
	// the driver parses a long statement slowly.
	batch := 1000
	if db.Dialect == store.SQLite {
		batch = 1
	}
	ids := make([]string, 0, n)
	ctx := context.Background()
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	for start := 0; start < n; start += batch {
		var (
			sb   strings.Builder
			args []any
		)
		sb.WriteString(`INSERT INTO runs (id, account_id, agent_id, status, trigger_type, credits, error, created_at, started_at, ended_at, updated_at) VALUES `)
		for i := start; i < min(start+batch, n); i++ {
			created := end.Add(-span + time.Duration(i)*(span/time.Duration(n))).UTC()
			id := idAt(created)
			ids = append(ids, id)
			status, trigger, errText := runCompleted, "dynamic_input", any(nil)
			switch {
			case i%100 < 7:
				status, errText = runFailed, "step failed: the model answered 500"
			case i%100 < 10 && i >= n-50:
				status = runProcessing
			}
			switch {
			case i%20 == 0:
				trigger = "call_agent"
			case i%20 < 4:
				trigger = "schedule"
			}
			started := created.Add(20 * time.Millisecond)
			var ended any = started.Add(time.Duration(200+(i*37)%4800) * time.Millisecond)
			if status == runProcessing {
				ended = nil
			}
			if i > start {
				sb.WriteString(", ")
			}
			p := len(args)
			sb.WriteString("(")
			for k := 1; k <= 11; k++ {
				if k > 1 {
					sb.WriteString(", ")
				}
				sb.WriteString("$" + strconv.Itoa(p+k))
			}
			sb.WriteString(")")
			args = append(args, id, accountID, agents[i%len(agents)], status, trigger, int64(1000*(i%50)), errText, created, started, ended, created)
		}
		if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	if db.Dialect == store.Postgres {
		if _, err := db.W.ExecContext(ctx, `ANALYZE runs`); err != nil {
			tb.Fatal(err)
		}
	} else if _, err := db.W.ExecContext(ctx, `ANALYZE`); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// The statuses of the runs area's runs (runs.RunCompleted…): this
// package cannot import the runs area, whose tests import it.
const (
	runCompleted  = "completed"
	runFailed     = "failed"
	runProcessing = "processing"
)

// idAt mints a UUIDv7 for time t.
func idAt(t time.Time) string {
	var b [16]byte
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(t.UnixMilli()))
	copy(b[:6], ts[2:])
	_, _ = rand.Read(b[6:])
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
