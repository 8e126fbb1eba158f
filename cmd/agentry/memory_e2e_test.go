package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestCompactionSurvivesKill fills many partitions of a bank past its
// max_turns, queues a compaction, SIGKILLs the serving process while the
// job is summarising them, and checks every partition holds either all
// its old entries or the summary with the survivors, never both and
// never neither; after a restart the rescued job (or the sweep) finishes
// the rest, one summary per partition.
func TestCompactionSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes and waits for the job rescuer")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dbURL, dataDir := storetest.URL(t, d), t.TempDir()
		env := []string{"SERVICE_JOB_TIMEOUT=20s", "SERVICE_JOB_RESCUE_AFTER=25s", "SERVICE_BOOTSTRAP_API_KEY=" + e2eKey, "SERVICE_MAX_WORKERS=2"}
		c := startServe(t, dbURL, dataDir, env...)
		const maxTurns, keep = 10, 5
		resp := apiPost(t, c.addr, "/memory_banks", fmt.Sprintf(`{"name":"chats","type":"conversation","max_turns":%d}`, maxTurns))
		var bank struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&bank)
		resp.Body.Close()
		if bank.ID == "" {
			t.Fatalf("create bank: %d", resp.StatusCode)
		}
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		k, err := auth.APIKeyByHash(ctx, db, auth.HashKey(e2eKey))
		if err != nil {
			t.Fatal(err)
		}
		// Entries stored straight into the table skip the inline check, so
		// only the job compacts them.
		const parts, entries = 24, 1200
		base := time.Now().Add(-time.Hour).UTC()
		for p := range parts {
			if err := db.Tx(ctx, func(tx *sql.Tx) error {
				for i := range entries {
					_, err := tx.ExecContext(ctx, `INSERT INTO memory_entries (id, account_id, bank_id, partition_key, speaker, content, metadata, tags,
						tokens, summary, content_id, run_id, created_at) VALUES ($1,$2,$3,$4,'user',$5,'{}','[]',12,FALSE,NULL,NULL,$6)`,
						store.NewID(), k.AccountID, bank.ID, fmt.Sprintf("customer-%d", p),
						fmt.Sprintf("Customer %d says their order %d ships to city %d on day %d.", p, i, i%37, i%28), base.Add(time.Duration(i)*time.Millisecond))
					if err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		// Written with SQL of their own: the bank's stat totals counted
		// afresh, as compactions take the entries off them.
		if err := memory.TestRows(db).RebuildMemoryStats(ctx, bank.ID); err != nil {
			t.Fatal(err)
		}
		type state struct{ live, deleted, summaries int }
		check := func() (done int) {
			t.Helper()
			for p := range parts {
				var s state
				key := fmt.Sprintf("customer-%d", p)
				if err := db.R.QueryRowContext(ctx, `SELECT
					COALESCE(SUM(CASE WHEN deleted_at IS NULL THEN 1 ELSE 0 END), 0),
					COALESCE(SUM(CASE WHEN deleted_at IS NOT NULL THEN 1 ELSE 0 END), 0),
					COALESCE(SUM(CASE WHEN summary AND deleted_at IS NULL THEN 1 ELSE 0 END), 0)
					FROM memory_entries WHERE bank_id = $1 AND partition_key = $2`, bank.ID, key).Scan(&s.live, &s.deleted, &s.summaries); err != nil {
					t.Fatal(err)
				}
				switch s {
				case state{entries, 0, 0}:
				case state{1 + keep, entries - keep, 1}:
					done++
				default:
					t.Fatalf("%s is half compacted: %+v", key, s)
				}
			}
			return done
		}
		resp = apiPost(t, c.addr, "/memory_banks/"+bank.ID+"/compact", "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("compact: %d", resp.StatusCode)
		}
		// Kill as soon as the first partition is compacted: the job is then
		// in the middle of the others.
		deadline := time.Now().Add(60 * time.Second)
		for check() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the compaction job never started")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		c.cmd.Wait()
		done := check()
		if done == parts {
			t.Skip("the machine compacted every partition before the kill; nothing was interrupted")
		}
		t.Logf("killed with %d of %d partitions compacted", done, parts)
		startServe(t, dbURL, dataDir, env...)
		deadline = time.Now().Add(180 * time.Second)
		for check() < parts {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d partitions compacted after the restart", check(), parts)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}
