package storetest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/store"
)

// SeedRuns writes n finished-looking runs of accountID straight into the
// runs table (through the runs area's runrow.InsertSeeds), spread evenly
// over the span before end and over agents, for benchmarks and tests of
// lists at scale (100,000 runs in seconds, where executing them would
// take minutes). Each has an id minted for its
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
	failure := "step failed: the model answered 500"
	for start := 0; start < n; start += batch {
		seeds := make([]runrow.Seed, 0, batch)
		for i := start; i < min(start+batch, n); i++ {
			created := end.Add(-span + time.Duration(i)*(span/time.Duration(n))).UTC()
			id := idAt(created)
			ids = append(ids, id)
			status, trigger, errText := runrow.Completed, "dynamic_input", (*string)(nil)
			switch {
			case i%100 < 7:
				status, errText = runrow.Failed, &failure
			case i%100 < 10 && i >= n-50:
				status = runrow.Processing
			}
			switch {
			case i%20 == 0:
				trigger = "call_agent"
			case i%20 < 4:
				trigger = "schedule"
			}
			started := created.Add(20 * time.Millisecond)
			ended := started.Add(time.Duration(200+(i*37)%4800) * time.Millisecond)
			endedAt := &ended
			if status == runrow.Processing {
				endedAt = nil
			}
			seeds = append(seeds, runrow.Seed{ID: id, AccountID: accountID, AgentID: agents[i%len(agents)], Status: status, TriggerType: trigger,
				Credits: int64(1000 * (i % 50)), Error: errText, CreatedAt: created, StartedAt: started, EndedAt: endedAt})
		}
		if err := runrow.InsertSeeds(ctx, tx, seeds); err != nil {
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
