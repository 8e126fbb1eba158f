package memory_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func ptr[T any](v T) *T { return &v }

var facts = []string{
	"My name is Ada Lovelace and I live in Berlin.",
	"My order number is 4417 and it was placed on 3 March.",
	"The parcel should go to Alexanderplatz 5.",
	"I prefer to be contacted by email, not phone.",
	"The refund of 39 euros was approved by Grace.",
	"Please note my loyalty tier is Gold.",
	"The replacement ships on Friday with DHL.",
	"Thanks, that is all for today.",
}

func bank(t *testing.T, s *testserver.Server, b memory.MemoryBank) memory.MemoryBank {
	t.Helper()
	b.AccountID = s.AccountID
	if b.Type == "" {
		b.Type = memory.TypeConversation
	}
	out, err := s.S.Memory.CreateBank(context.Background(), s.AccountID, memory.BankInput{Name: ptr("Test bank"), Type: &b.Type,
		MaxTurns: b.MaxTurns, MaxAgeDays: b.MaxAgeDays, MaxSizeTokens: b.MaxSizeTokens, CompactionPrompt: b.CompactionPrompt})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// extractive checks every sentence of summary is a sentence of the
// entries: the offline model's summary is faithful.
func extractive(t *testing.T, summary string, entries []string) {
	t.Helper()
	joined := strings.Join(entries, "\n")
	for _, s := range regexp.MustCompile(`[^.!?]+[.!?]`).FindAllString(summary, -1) {
		if s = strings.TrimSpace(s); s != "" && !strings.Contains(joined, s) {
			t.Errorf("summary sentence %q is not in the entries", s)
		}
	}
}

func TestInlineCompactionReplacesOldestWithSummary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		b := bank(t, s, memory.MemoryBank{MaxTurns: ptr(6)})
		for i, f := range facts[:7] {
			speaker := "user"
			if _, err := s.S.Memory.Add(ctx, b, memory.Write{Partition: "ada", Speaker: &speaker, Content: f}); err != nil {
				t.Fatal(err)
			}
			live, _ := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, b.ID, "ada", 100)
			if i < 6 && len(live) != i+1 {
				t.Fatalf("after %d writes: %d live", i+1, len(live))
			}
		}
		// The 7th write crossed max_turns 6: the oldest 4 became one
		// summary, the newest 3 stay.
		live, err := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, b.ID, "ada", 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(live) != 4 || !live[0].Summary || live[1].Content != facts[4] || live[3].Content != facts[6] {
			t.Fatalf("after compaction: %d live, first summary %v", len(live), len(live) > 0 && live[0].Summary)
		}
		lines := make([]string, 4)
		for i := range lines {
			lines[i] = "user: " + facts[i]
		}
		extractive(t, live[0].Content, lines)
		if live[0].Metadata["compacted_entries"] != float64(4) {
			t.Errorf("summary metadata %v", live[0].Metadata)
		}
		hist, _ := s.S.Memory.History(ctx, b, "ada", 20, 0)
		if got := memory.Transcript(hist); !strings.HasPrefix(got, "Summary of earlier conversation: ") {
			t.Errorf("transcript %q", got)
		}
		// Another partition is untouched.
		other, _ := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, b.ID, "bob", 100)
		if len(other) != 0 {
			t.Fatal("bob has entries")
		}
	})
}

func TestSweepAndCompactJob(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		// Old entries in a bank with max_age_days: only the sweep sees them.
		old := bank(t, s, memory.MemoryBank{MaxAgeDays: ptr(7)})
		for _, f := range facts {
			if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: old.ID, Partition: "ada", Content: f,
				Tokens: llm.EstimateTokens(f)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DB.W.ExecContext(ctx, `UPDATE memory_entries SET created_at = $1 WHERE bank_id = $2`, time.Now().Add(-10*24*time.Hour).UTC(), old.ID); err != nil {
			t.Fatal(err)
		}
		if err := memory.TestRows(s.DB).RebuildMemoryStats(ctx, old.ID); err != nil {
			t.Fatal(err)
		}
		// (The hourly job's run at start may race this call for the same
		// partition; either way one summary results.)
		if _, err := s.S.Memory.Sweep(ctx); err != nil {
			t.Fatalf("sweep: %v", err)
		}
		live, _ := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, old.ID, "ada", 100)
		if len(live) != 1 || !live[0].Summary {
			t.Fatalf("after the sweep: %d live", len(live))
		}
		extractive(t, live[0].Content, facts)
		// A second sweep finds nothing due (the summary alone is not old).
		if n, err := s.S.Memory.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("second sweep: %d %v", n, err)
		}

		// Retention (30 days by default) removes what is older.
		if _, err := s.DB.W.ExecContext(ctx, `UPDATE memory_entries SET created_at = $1 WHERE bank_id = $2`, time.Now().Add(-31*24*time.Hour).UTC(), old.ID); err != nil {
			t.Fatal(err)
		}
		if err := memory.TestRows(s.DB).RebuildMemoryStats(ctx, old.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.S.Memory.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if live, _ := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, old.ID, "ada", 100); len(live) != 0 {
			t.Fatalf("retention kept %d entries", len(live))
		}

		// POST …/compact queues a job that compacts over-threshold
		// partitions (entries stored directly skip the inline check).
		b := bank(t, s, memory.MemoryBank{MaxTurns: ptr(4), CompactionPrompt: ptr("Summarize the customer's facts in two sentences.")})
		for _, f := range facts {
			if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: b.ID, Partition: "ada", Content: f, Tokens: 12}); err != nil {
				t.Fatal(err)
			}
		}
		r := s.Do(t, "POST", "/memory_banks/"+b.ID+"/compact", s.Key, nil)
		if r.Status != http.StatusAccepted {
			t.Fatalf("compact: %d %s", r.Status, r.Body)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			live, _ := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, b.ID, "ada", 100)
			if len(live) == 3 && live[0].Summary {
				if k := len(regexp.MustCompile(`[.!?](\s|$)`).FindAllString(live[0].Content, -1)); k > 2 {
					t.Errorf("the bank's prompt asked for two sentences: %q", live[0].Content)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the compact job did not run: %d live", len(live))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestConcurrentCompactionsWriteOneSummary: compactions of one partition
// racing (two replicas) leave exactly one summary and no double delete.
func TestConcurrentCompactionsWriteOneSummary(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		b := bank(t, s, memory.MemoryBank{MaxTurns: ptr(10)})
		for i := range 40 {
			if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: b.ID, Partition: "p",
				Content: fmt.Sprintf("Fact number %d is about item %d.", i, i*7), Tokens: 8}); err != nil {
				t.Fatal(err)
			}
		}
		// Two services over one database, as two replicas would be.
		other := memory.New(s.DB, s.S.Knowledge, offline.New(), func() string { return "offline" }, nil)
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				svc := s.S.Memory
				if i%2 == 1 {
					svc = other
				}
				if _, err := svc.CompactPartition(ctx, b, "p", llm.CallMeta{}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		live, _ := memory.TestRows(s.DB).LatestMemoryEntries(ctx, s.AccountID, b.ID, "p", 100)
		summaries := 0
		for _, e := range live {
			if e.Summary {
				summaries++
			}
		}
		// The first compaction leaves a summary + the newest 5; a later one
		// finds 6 entries (not over 10) and does nothing.
		if summaries != 1 || len(live) != 6 {
			t.Fatalf("%d live, %d summaries", len(live), summaries)
		}
	})
}
