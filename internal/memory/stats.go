package memory

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Distribution sums up a list of numbers.
type Distribution struct {
	Avg float64 `json:"avg"`
	P95 float64 `json:"p95"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

func distribution(v []float64) Distribution {
	if len(v) == 0 {
		return Distribution{}
	}
	sort.Float64s(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	i := int(math.Ceil(0.95*float64(len(v)))) - 1
	return Distribution{Avg: math.Round(sum/float64(len(v))*100) / 100, P95: v[max(i, 0)], Min: v[0], Max: v[len(v)-1]}
}

// Count is one key and how many entries carry it.
type Count struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

func top(m map[string]int, n int) []Count {
	out := make([]Count, 0, len(m))
	for k, c := range m {
		out = append(out, Count{k, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Key < out[j].Key
	})
	return out[:min(n, len(out))]
}

// Stats sums up a bank's live entries created in [from, to): counts and
// distributions only, never an entry's text.
func (s *Service) Stats(ctx context.Context, accountID, id string, from, to time.Time) (map[string]any, error) {
	b, err := s.db.MemoryBank(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	list, err := s.db.MemoryStatEntries(ctx, accountID, id, from, to)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var tokens, ages []float64
	perKey, speakers, tags := map[string]int{}, map[string]int{}, map[string]int{}
	total, summaries := 0, 0
	for _, e := range list {
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
	for _, n := range perKey {
		per = append(per, float64(n))
	}
	out := map[string]any{
		"memory_bank_id": b.ID, "type": b.Type,
		"start_date": from.UTC().Format(time.RFC3339), "end_date": to.UTC().Format(time.RFC3339),
		"total_entries": len(list), "total_tokens": total, "summary_entries": summaries,
		"distinct_keys":    len(perKey),
		"tokens_per_entry": distribution(tokens), "age_days": distribution(ages), "entries_per_key": distribution(per),
		"top_speakers": top(speakers, 10), "top_tags": top(tags, 10),
		"top_conversation_keys": []Count{}, "top_group_keys": []Count{},
	}
	if len(list) == store.MaxStatEntries {
		out["truncated"] = true
	}
	if b.Type == TypeConversation {
		out["top_conversation_keys"] = top(perKey, 10)
	} else {
		out["top_group_keys"] = top(perKey, 10)
	}
	return out, nil
}
