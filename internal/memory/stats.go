package memory

import (
	"context"
	"math"
	"math/big"
	"time"
)

// Distribution sums up a list of numbers.
type Distribution struct {
	Avg float64 `json:"avg"`
	P95 float64 `json:"p95"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Count is one key and how many entries carry it.
type Count struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// counts turns the store's top-ten lists into the response's.
func counts(list []NameCount) []Count {
	out := make([]Count, len(list))
	for i, c := range list {
		out[i] = Count{c.Name, c.Count}
	}
	return out
}

// histogramDistribution is distribution over the values a histogram
// (ascending values, each with how many have it) stands for, without
// writing them out: the same average, 95th percentile (the value at rank
// ceil(0.95·n)), minimum and maximum.
func histogramDistribution(h []ValueCount) Distribution {
	n, sum := 0, 0.0
	for _, v := range h {
		n += v.Count
		sum += float64(v.Value) * float64(v.Count)
	}
	if n == 0 {
		return Distribution{}
	}
	rank, p95 := max(int(math.Ceil(0.95*float64(n)))-1, 0), 0.0
	for seen, i := 0, 0; i < len(h); i++ {
		if seen += h[i].Count; seen > rank {
			p95 = float64(h[i].Value)
			break
		}
	}
	return Distribution{Avg: math.Round(sum/float64(n)*100) / 100, P95: p95, Min: float64(h[0].Value), Max: float64(h[len(h)-1].Value)}
}

// averageAgeDays is the average age in days at now of n entries created
// on the given days, rounded to the hundredth (half away from zero, as
// math.Round), computed exactly: the sum of the ages in microseconds is
// each day's count times the time from its midnight to now, less the sum
// of its entries' times of day.
func averageAgeDays(now time.Time, days []StatDay, n int) float64 {
	total, term := new(big.Int), new(big.Int)
	for _, d := range days {
		term.Mul(big.NewInt(d.Entries), big.NewInt(now.UnixMicro()-d.Day.UnixMicro()))
		total.Add(total, term.Sub(term, big.NewInt(d.CreatedMicroseconds)))
	}
	return float64(roundedQuotient(total, big.NewInt(int64(n)*int64(24*time.Hour/time.Microsecond)/100))) / 100
}

// roundedQuotient is a/b (b > 0) rounded to the nearest integer, halves
// away from zero.
func roundedQuotient(a, b *big.Int) int64 {
	q, r := new(big.Int).QuoRem(a, b, new(big.Int))
	if twice := new(big.Int).Abs(r); twice.Lsh(twice, 1).Cmp(b) >= 0 {
		q.Add(q, big.NewInt(int64(a.Sign())))
	}
	return q.Int64()
}

// ageDays is an entry's age in days, to the hundredth.
func ageDays(now, at time.Time) float64 { return math.Round(now.Sub(at).Hours()/24*100) / 100 }

// Stats sums up a bank's live entries created in [from, to): counts and
// distributions only, never an entry's text. The store adds them up from
// the totals it keeps per UTC day for the whole days of the period and
// from the entries of the two partial days at its edges; the age
// distribution's 95th percentile, minimum and maximum are the ages of the
// entries at those ranks (three reads at given ranks, newest first, as
// ages only grow with time), its average the exact average age (from
// each day's count and sum of creation times) rounded to the hundredth.
func (s *Service) Stats(ctx context.Context, accountID, id string, from, to time.Time) (map[string]any, error) {
	b, err := s.repo.MemoryBank(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	return s.stats(ctx, b, from, to, time.Now())
}

func (s *Service) stats(ctx context.Context, b MemoryBank, from, to, now time.Time) (map[string]any, error) {
	var (
		sums StatSums
		ages Distribution
	)
	// The sums and the three ranks are separate reads: when entries are
	// deleted in between (a reset, compaction) a rank may be gone, and the
	// stats are read again, a few times at most.
	for attempt := 0; ; attempt++ {
		var err error
		if sums, err = s.repo.MemoryStatSummary(ctx, b.ID, from, to); err != nil {
			return nil, err
		}
		n := sums.Entries
		if n == 0 {
			ages = Distribution{}
			break
		}
		// The 95th percentile's rank counted from the newest; read from
		// whichever end of the index is nearer.
		rank := max(int(math.Ceil(0.95*float64(n)))-1, 0)
		var at [3]time.Time
		found := true
		for i, q := range []struct {
			offset int
			oldest bool
		}{{0, false}, {0, true}, {min(rank, n-1-rank), n-1-rank < rank}} {
			t, ok, err := s.repo.MemoryStatNewest(ctx, b.ID, from, to, q.offset, q.oldest)
			if err != nil {
				return nil, err
			}
			if !ok {
				t = now // gone: an age of 0 if the last attempt finds no better
			}
			at[i], found = t, found && ok
		}
		if found || attempt == 2 {
			ages = Distribution{Avg: averageAgeDays(now, sums.Days, n),
				P95: ageDays(now, at[2]), Min: ageDays(now, at[0]), Max: ageDays(now, at[1])}
			break
		}
	}
	total := 0
	for _, v := range sums.Tokens {
		total += int(v.Value) * v.Count
	}
	distinct := 0
	for _, v := range sums.PerKey {
		distinct += v.Count
	}
	out := map[string]any{
		"memory_bank_id": b.ID, "type": b.Type,
		"start_date": from.UTC().Format(time.RFC3339), "end_date": to.UTC().Format(time.RFC3339),
		"total_entries": sums.Entries, "total_tokens": total, "summary_entries": sums.Summaries,
		"distinct_keys":    distinct,
		"tokens_per_entry": histogramDistribution(sums.Tokens), "age_days": ages, "entries_per_key": histogramDistribution(sums.PerKey),
		"top_speakers": counts(sums.TopSpeakers), "top_tags": counts(sums.TopTags),
		"top_conversation_keys": []Count{}, "top_group_keys": []Count{},
	}
	if b.Type == TypeConversation {
		out["top_conversation_keys"] = counts(sums.TopKeys)
	} else {
		out["top_group_keys"] = counts(sums.TopKeys)
	}
	return out, nil
}
