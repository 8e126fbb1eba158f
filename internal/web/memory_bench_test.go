package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The memory area's page benchmarks at a realistic size: a conversation
// bank of 100,000 entries over 1,000 keys and the last 20 days (one in
// seven tagged, a few summaries, tokens varying). Each page's p50 and
// p95 are reported (p50-ms, p95-ms) as a browser sees them over a
// loopback socket: the bank's page, its stats panel (which adds up every
// entry of the last 30 days), the keys (first page, by prefix), the
// entries (newest, a page deep in the bank by cursor, one key's, a search
// most entries match, one that a single entry among the newest 10,000
// matches and one none of them does: both read the whole window of 10,000
// entries a search page reads). For example:
//
//	go test -run '^$' -bench MemoryPages -benchtime 100x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)

// seedBrowseEntries writes n entries into a bank in one transaction,
// spread over keys keys and the last 20 days, and returns the id of the
// entry in the middle (a cursor deep in the bank).
func seedBrowseEntries(b testing.TB, db *store.DB, accountID, bankID string, n, keys int) string {
	b.Helper()
	ctx := context.Background()
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO memory_entries (id, account_id, bank_id, partition_key, speaker, content, metadata,
		tags, tokens, summary, content_id, run_id, created_at) VALUES ($1,$2,$3,$4,$5,$6,'{"channel":"chat"}',$7,$8,$9,NULL,NULL,$10)`)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-20 * 24 * time.Hour)
	tagSets := []string{`["vip"]`, `["refund","vip"]`, `["de"]`}
	middle := ""
	for i := range n {
		speaker := [2]string{"user", "assistant"}[i%2]
		tags := `[]`
		if i%7 == 0 {
			tags = tagSets[i%3]
		}
		// (i × span overflows a Duration past 5,000 entries: the step first.)
		at := start.Add(time.Duration(i) * (20 * 24 * time.Hour / time.Duration(n))).UTC()
		id := store.NewID()
		if i == n/2 {
			middle = id
		}
		if _, err := st.ExecContext(ctx, id, accountID, bankID, fmt.Sprintf("customer-%04d", i%keys), speaker,
			fmt.Sprintf("Turn %d: the order %d was shipped to Berlin on Tuesday.", i, 10000+i), tags, 10+i%40, i%500 == 0, at); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// Written with SQL of its own: the bank's stat totals counted afresh
	// (as migration 00195 counts the entries already there).
	if err := memory.TestRows(db).RebuildMemoryStats(ctx, bankID); err != nil {
		b.Fatal(err)
	}
	return middle
}

func BenchmarkMemoryPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			api := apiClient(b, srv, srv.Key)
			turns := 500
			bank, err := api.CreateMemoryBank(context.Background(), client.CreateMemoryBankRequest{Name: "Support conversations", Type: "conversation", MaxTurns: &turns})
			if err != nil {
				b.Fatal(err)
			}
			middle := seedBrowseEntries(b, srv.DB, srv.AccountID, bank.ID, 100_000, 1_000)
			if d == store.Postgres {
				// As autovacuum would after a bulk load: statistics, and the
				// visibility map that lets the stats read the index alone.
				if _, err := srv.DB.W.ExecContext(context.Background(), `VACUUM ANALYZE memory_entries, memory_stat_tokens, memory_stat_keys, memory_stat_labels`); err != nil {
					b.Fatal(err)
				}
			}
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			base := "/console/memory/" + bank.ID
			benchPages(b, br, []struct{ name, path, want string }{
				{"bank", base, "Compaction"},
				{"bank-stats", base + "/stats", "customer-"},
				{"keys", base + "/keys", "customer-0049"},
				{"keys-prefix", base + "/keys?prefix=customer-09", "customer-0949"},
				{"entries", base + "/entries", "Turn 99999:"},
				{"entries-deep", base + "/entries?cursor=" + middle, "Turn 49999:"},
				{"entries-key", base + "/entries?key=customer-0500", "Turn 99500:"},
				{"entries-search-common", base + "/entries?q=berlin", "Turn 99999:"},
				{"entries-search-one", base + "/entries?q=order+100000+", "Turn 90000:"},
				{"entries-search-none", base + "/entries?q=order+60000+", "search on further back"},
			})
		})
	}
}
