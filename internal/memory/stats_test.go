package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// goStats is how the stats were computed before the store added them up:
// every entry of the period read into Go, summed, sorted. The test keeps
// it as the reference the SQL must match. The average age is the exact
// average (creation times to the microsecond) rounded to the hundredth,
// as since migration 00195 (before, each age was rounded first).
func goStats(b memory.MemoryBank, list []memory.Entry, from, to, now time.Time) map[string]any {
	distribution := func(v []float64) memory.Distribution {
		if len(v) == 0 {
			return memory.Distribution{}
		}
		sort.Float64s(v)
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		i := int(math.Ceil(0.95*float64(len(v)))) - 1
		return memory.Distribution{Avg: math.Round(sum/float64(len(v))*100) / 100, P95: v[max(i, 0)], Min: v[0], Max: v[len(v)-1]}
	}
	top := func(m map[string]int, n int) []memory.Count {
		out := make([]memory.Count, 0, len(m))
		for k, c := range m {
			out = append(out, memory.Count{Key: k, Count: c})
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Count != out[j].Count {
				return out[i].Count > out[j].Count
			}
			return out[i].Key < out[j].Key
		})
		return out[:min(n, len(out))]
	}
	var tokens, ages []float64
	ageSum := new(big.Int)
	perKey, speakers, tags := map[string]int{}, map[string]int{}, map[string]int{}
	total, summaries, n := 0, 0, 0
	for _, e := range list {
		if e.CreatedAt.Before(from) || !e.CreatedAt.Before(to) {
			continue
		}
		n++
		tokens = append(tokens, float64(e.Tokens))
		ages = append(ages, math.Round(now.Sub(e.CreatedAt).Hours()/24*100)/100)
		ageSum.Add(ageSum, big.NewInt(now.UnixMicro()-e.CreatedAt.Truncate(time.Microsecond).UnixMicro()))
		perKey[e.Partition]++
		if e.Speaker != nil {
			speakers[*e.Speaker]++
		}
		for _, t := range e.Tags {
			tags[t]++
		}
		total += e.Tokens
		if e.Summary {
			summaries++
		}
	}
	per := make([]float64, 0, len(perKey))
	for _, c := range perKey {
		per = append(per, float64(c))
	}
	age := distribution(ages)
	if n > 0 {
		// floor((2·sum + d) / 2d), d a hundredth of a day times n: the
		// nearest hundredth, halves up (every age here is positive).
		d := big.NewInt(int64(n) * 864_000_000)
		h := new(big.Int).Add(new(big.Int).Lsh(ageSum, 1), d)
		h.Div(h, new(big.Int).Lsh(d, 1))
		age.Avg = float64(h.Int64()) / 100
	}
	out := map[string]any{
		"memory_bank_id": b.ID, "type": b.Type,
		"start_date": from.UTC().Format(time.RFC3339), "end_date": to.UTC().Format(time.RFC3339),
		"total_entries": n, "total_tokens": total, "summary_entries": summaries, "distinct_keys": len(perKey),
		"tokens_per_entry": distribution(tokens), "age_days": age, "entries_per_key": distribution(per),
		"top_speakers": top(speakers, 10), "top_tags": top(tags, 10),
		"top_conversation_keys": []memory.Count{}, "top_group_keys": []memory.Count{},
	}
	if b.Type == memory.TypeConversation {
		out["top_conversation_keys"] = top(perKey, 10)
	} else {
		out["top_group_keys"] = top(perKey, 10)
	}
	return out
}

// seedStatEntries writes n entries of every shape the stats add up
// (skewed keys, speakers or none, tags with repeats, summaries, tokens,
// times over 40 days to the millisecond), some deleted, with SQL of its
// own, then has the store count the bank's totals afresh (as migration
// 00195 did for the entries already there).
func seedStatEntries(t *testing.T, s *testserver.Server, bankID string, n int, now time.Time, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.DB.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	speakers := []any{nil, "user", "assistant", "Bob", "Zoë", ""}
	tagSets := []string{`[]`, `[]`, `[]`, `["vip"]`, `["vip","refund"]`, `["refund","refund"]`, `["ü","de","vip"]`, `["Vip"]`}
	keys := []string{"", "cust-a", "cust-b", "Cust-c", "team/ü", "zz"}
	for i := range n {
		key := keys[min(int(rng.ExpFloat64()*1.5), len(keys)-1)]
		if rng.IntN(10) == 0 {
			key = "k" + string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26)))
		}
		at := now.Add(-time.Duration(rng.Int64N(int64(40 * 24 * time.Hour)))).Truncate(time.Millisecond)
		var deleted any
		if i%17 == 0 {
			deleted = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_entries (id, account_id, bank_id, partition_key, speaker, content, metadata,
			tags, tokens, summary, content_id, run_id, created_at, deleted_at) VALUES ($1,$2,$3,$4,$5,'x','{}',$6,$7,$8,NULL,NULL,$9,$10)`,
			store.NewID(), s.AccountID, bankID, key, speakers[rng.IntN(len(speakers))], tagSets[rng.IntN(len(tagSets))],
			1+rng.IntN(300)*rng.IntN(3), rng.IntN(20) == 0, at.UTC(), deleted); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := memory.TestRows(s.DB).RebuildMemoryStats(ctx, bankID); err != nil {
		t.Fatal(err)
	}
}

// longBank is a bank that keeps its entries ten years, so the retention
// sweep deletes none of the seeded ones (40 days back) during the test.
func longBank(t *testing.T, s *testserver.Server, typ string) memory.MemoryBank {
	t.Helper()
	b, err := s.S.Memory.CreateBank(context.Background(), s.AccountID, memory.BankInput{Name: ptr("Stats bank"), Type: &typ, RetentionDays: ptr(3650)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkTotals: the totals the writes kept for a bank are what counting
// its entries afresh gives.
func checkTotals(t *testing.T, s *testserver.Server, bankID, after string) {
	t.Helper()
	ctx := context.Background()
	kept, err := memory.TestRows(s.DB).MemoryStatRows(ctx, bankID)
	if err != nil {
		t.Fatal(err)
	}
	if err := memory.TestRows(s.DB).RebuildMemoryStats(ctx, bankID); err != nil {
		t.Fatal(err)
	}
	counted, err := memory.TestRows(s.DB).MemoryStatRows(ctx, bankID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, counted) {
		t.Fatalf("after %s, the kept totals (%d rows) differ from a count afresh (%d rows):\n kept %v\ncount %v", after, len(kept), len(counted), kept, counted)
	}
}

// TestStatsInSQLMatchGo: the stats the store adds up are the very values
// (and JSON) the Go computation over every entry gives, for a
// conversation and a general bank, after every kind of write the totals
// follow (entries seeded over 40 days and counted afresh, inserts,
// compactions replacing entries of past days, a retention sweep cutting a
// day in two, a reset, inserts after it), over periods whose edges fall
// within days, on midnights, within one day or across one midnight, an
// empty one and one holding a single entry. After each write the kept
// totals equal a count afresh.
func TestStatsInSQLMatchGo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Millisecond)
		rng := rand.New(rand.NewPCG(36, 192))
		day := func(n int) time.Time {
			return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)
		}
		for _, typ := range []string{memory.TypeConversation, memory.TypeGeneral} {
			b := longBank(t, s, typ)
			// Another bank's entries count for it alone.
			other := longBank(t, s, typ)
			seedStatEntries(t, s, other.ID, 200, now, rng)
			compare := func(after string) {
				t.Helper()
				checkTotals(t, s, b.ID, after)
				list, err := memory.TestRows(s.DB).MemoryEntries(ctx, s.AccountID, b.ID, memory.EntryFilter{Newest: true, Limit: 1_000_000})
				if err != nil {
					t.Fatal(err)
				}
				periods := [][2]time.Time{
					{now.Add(time.Second).AddDate(0, 0, -30), now.Add(time.Second)},
					{day(-35), day(-9)},
					{day(-35).Add(7 * time.Hour), day(1)},
					{day(-45), day(2)},
					{day(-3).Add(time.Hour), day(-3).Add(20 * time.Hour)},
					{day(-3).Add(20 * time.Hour), day(-2).Add(5 * time.Hour)},
					{day(-400), day(-300)},
				}
				if len(list) > 5 {
					periods = append(periods, [2]time.Time{list[5].CreatedAt, list[5].CreatedAt.Add(time.Microsecond)})
				}
				for _, p := range periods {
					got, err := s.S.Memory.StatsAt(ctx, b, p[0], p[1], now)
					if err != nil {
						t.Fatal(err)
					}
					g, _ := json.Marshal(got)
					w, _ := json.Marshal(goStats(b, list, p[0], p[1], now))
					if string(g) != string(w) {
						t.Errorf("after %s, %s bank, %v to %v:\n got %s\nwant %s", after, typ, p[0], p[1], g, w)
					}
				}
			}
			seedStatEntries(t, s, b.ID, 3000, now, rng)
			compare("seeding")

			// Inserts, some into keys, speakers and tags already counted
			// today, some new.
			speakers := []*string{nil, ptr("user"), ptr("Zoë"), ptr("")}
			for i := range 40 {
				if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: b.ID, Partition: []string{"cust-a", "", "new-key"}[i%3],
					Speaker: speakers[i%len(speakers)], Content: "x", Tags: [][]string{nil, {"vip"}, {"new", "new", "vip"}}[i%3], Tokens: 1 + i%4, Summary: i == 7}); err != nil {
					t.Fatal(err)
				}
			}
			compare("inserts")

			// Compactions: the oldest entries of two keys replaced by a
			// summary dated as the last of them (days in the past), the
			// whole of a third key's replaced.
			for _, c := range []struct {
				key string
				n   int
			}{{"cust-a", 60}, {"", 25}, {"team/ü", 1_000_000}} {
				old, err := memory.TestRows(s.DB).OldestMemoryEntries(ctx, s.AccountID, b.ID, c.key, c.n)
				if err != nil || len(old) == 0 {
					t.Fatalf("key %q: %d entries, %v", c.key, len(old), err)
				}
				ids := make([]string, len(old))
				for i, e := range old {
					ids[i] = e.ID
				}
				if _, err := memory.TestRows(s.DB).ReplaceMemoryEntries(ctx, s.AccountID, b.ID, c.key, ids, memory.Entry{Content: "summary", Tokens: 77,
					Tags: []string{"summary"}, CreatedAt: old[len(old)-1].CreatedAt}); err != nil {
					t.Fatal(err)
				}
			}
			compare("compactions")

			// The retention sweep, cutting a day at 13:00.
			if _, err := memory.TestRows(s.DB).ExpireMemoryEntries(ctx, s.AccountID, b.ID, day(-36).Add(13*time.Hour)); err != nil {
				t.Fatal(err)
			}
			compare("the retention sweep")

			// A reset, then inserts again.
			if _, err := memory.TestRows(s.DB).ClearMemoryBankSource(ctx, s.AccountID, b.ID); err != nil {
				t.Fatal(err)
			}
			if rows, err := memory.TestRows(s.DB).MemoryStatRows(ctx, b.ID); err != nil || len(rows) != 0 {
				t.Fatalf("after a reset: %d rows of totals, %v", len(rows), err)
			}
			compare("a reset")
			for i := range 12 {
				if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: b.ID, Partition: fmt.Sprint("k", i%5),
					Speaker: speakers[i%len(speakers)], Content: "x", Tags: []string{"after"}, Tokens: i}); err != nil {
					t.Fatal(err)
				}
			}
			compare("inserts after a reset")

			// The other bank's totals are its own still; deleting it
			// deletes them.
			checkTotals(t, s, other.ID, "writes to another bank")
			if err := memory.TestRows(s.DB).DeleteMemoryBank(ctx, s.AccountID, other.ID); err != nil {
				t.Fatal(err)
			}
			if rows, err := memory.TestRows(s.DB).MemoryStatRows(ctx, other.ID); err != nil || len(rows) != 0 {
				t.Fatalf("after deleting the bank: %d rows of totals, %v", len(rows), err)
			}
		}
	})
}

// TestStatTotalsUnderConcurrentWrites: inserts into one bank from many
// goroutines at once (every one into the same day, most into the same
// key, speaker and tag rows), beside inserts into another bank and a
// reset of the first midway, lose no count: afterwards each bank's kept
// totals equal a count afresh of its entries, and the other bank has
// every entry written to it.
func TestStatTotalsUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		hot, other := longBank(t, s, memory.TypeConversation), longBank(t, s, memory.TypeConversation)
		const writers, each = 8, 30
		var (
			wg      sync.WaitGroup
			errs    = make(chan error, 2*writers+1)
			started = make(chan struct{}, writers)
		)
		for w := range writers {
			for _, b := range []memory.MemoryBank{hot, other} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						if b.ID == hot.ID && i == each/3 {
							started <- struct{}{}
						}
						if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: b.ID, Partition: fmt.Sprint("k", (w+i)%3),
							Speaker: ptr("user"), Content: "x", Tags: []string{"vip", fmt.Sprint("w", w)}, Tokens: 10 + i%2}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
		}
		// A reset once every writer of the hot bank is a third of the way.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range writers {
				<-started
			}
			if _, err := memory.TestRows(s.DB).ClearMemoryBankSource(ctx, s.AccountID, hot.ID); err != nil {
				errs <- err
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		checkTotals(t, s, hot.ID, "concurrent inserts and a reset")
		checkTotals(t, s, other.ID, "concurrent inserts")
		st, err := s.S.Memory.StatsAt(ctx, other, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if st["total_entries"] != writers*each {
			t.Fatalf("the other bank counts %v entries, want %d", st["total_entries"], writers*each)
		}
	})
}
