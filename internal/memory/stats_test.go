package memory_test

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// goStats is how the stats were computed before the store added them up:
// every entry of the period read into Go, summed, sorted. The test keeps
// it as the reference the SQL must match.
func goStats(b store.MemoryBank, list []store.MemoryEntry, from, to, now time.Time) map[string]any {
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
	perKey, speakers, tags := map[string]int{}, map[string]int{}, map[string]int{}
	total, summaries, n := 0, 0, 0
	for _, e := range list {
		if e.CreatedAt.Before(from) || !e.CreatedAt.Before(to) {
			continue
		}
		n++
		tokens = append(tokens, float64(e.Tokens))
		ages = append(ages, math.Round(now.Sub(e.CreatedAt).Hours()/24*100)/100)
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
	out := map[string]any{
		"memory_bank_id": b.ID, "type": b.Type,
		"start_date": from.UTC().Format(time.RFC3339), "end_date": to.UTC().Format(time.RFC3339),
		"total_entries": n, "total_tokens": total, "summary_entries": summaries, "distinct_keys": len(perKey),
		"tokens_per_entry": distribution(tokens), "age_days": distribution(ages), "entries_per_key": distribution(per),
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
// times over 40 days to the millisecond), some deleted, and returns the
// live ones.
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
}

// longBank is a bank that keeps its entries ten years, so the retention
// sweep deletes none of the seeded ones (40 days back) during the test.
func longBank(t *testing.T, s *testserver.Server, typ string) store.MemoryBank {
	t.Helper()
	b, err := s.S.Memory.CreateBank(context.Background(), s.AccountID, memory.BankInput{Name: ptr("Stats bank"), Type: &typ, RetentionDays: ptr(3650)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStatsInSQLMatchGo: the stats the store adds up are the very values
// (and JSON) the Go computation over every entry gives, for a
// conversation and a general bank, over the default 30 days, a dated
// period, an empty one and one holding a single entry.
func TestStatsInSQLMatchGo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Millisecond)
		rng := rand.New(rand.NewPCG(36, 192))
		for _, typ := range []string{memory.TypeConversation, memory.TypeGeneral} {
			b := longBank(t, s, typ)
			seedStatEntries(t, s, b.ID, 3000, now, rng)
			// Another bank's entries count for it alone.
			seedStatEntries(t, s, longBank(t, s, typ).ID, 200, now, rng)
			list, err := s.DB.MemoryEntries(ctx, s.AccountID, b.ID, store.MemoryEntriesQuery{Newest: true, Limit: 1_000_000})
			if err != nil {
				t.Fatal(err)
			}
			day := func(n int) time.Time {
				return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)
			}
			periods := [][2]time.Time{
				{now.Add(time.Second).AddDate(0, 0, -30), now.Add(time.Second)},
				{day(-35), day(-9)},
				{day(-400), day(-300)},
				{list[5].CreatedAt, list[5].CreatedAt.Add(time.Microsecond)},
			}
			for _, p := range periods {
				got, err := s.S.Memory.StatsAt(ctx, b, p[0], p[1], now)
				if err != nil {
					t.Fatal(err)
				}
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(goStats(b, list, p[0], p[1], now))
				if string(g) != string(w) {
					t.Errorf("%s bank, %v to %v:\n got %s\nwant %s", typ, p[0], p[1], g, w)
				}
			}
		}
	})
}
