package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"
)

// The stats of a bank (GET /memory_banks/{id}/stats) added up in SQL:
// what used to read every entry of the period into Go (seconds at 100,000
// entries) is a few grouped reads of the bank's time index (migration
// 00192, which carries every column they need). Distributions come back
// as histograms (a value and how many entries have it), from which the
// memory area computes the exact average, 95th percentile, minimum and
// maximum; the age distribution is computed from the entries at the ranks
// it needs (MemoryStatNewest).

// ValueCount is one bar of a histogram: how many have the value.
type ValueCount struct {
	Value int64
	Count int
}

// NameCount is a name (key, speaker, tag) and how many entries carry it.
type NameCount struct {
	Name  string
	Count int
}

// MemoryStatSums is what a bank's live entries created in [from, to) add
// up to.
type MemoryStatSums struct {
	Entries, Summaries int
	Tokens             []ValueCount // entries per token count, ascending
	PerKey             []ValueCount // keys per entry count, ascending
	// AgeHundredths is the sum over the entries of each one's age in
	// hundredths of a day, rounded half up as the response rounds ages.
	AgeHundredths int64
	TopKeys       []NameCount // the 10 largest, ties in byte order
	TopSpeakers   []NameCount
	TopTags       []NameCount
}

const statTopN = 10

// MemoryStatSummary adds up a bank's live entries created in [from, to);
// now is the time ages are measured from. The caller has checked that the
// bank is the account's.
//
// Two grouped reads of the index do it. The first groups the entries by
// token count, speaker and tag list (few distinct combinations in
// practice, at most one per entry): the tokens histogram, the speakers',
// the tags' (each distinct list read once, its count multiplied) and the
// counts and age sum come from its rows. The second groups them by key.
func (db *DB) MemoryStatSummary(ctx context.Context, bankID string, from, to, now time.Time) (MemoryStatSums, error) {
	var s MemoryStatSums
	where := ` FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL AND created_at >= $2 AND created_at < $3`
	key := db.keyCol()
	// The age of an entry in hundredths of a day, rounded half up (ages
	// are not negative): 864 seconds is a hundredth of a day.
	age := `CAST(FLOOR(EXTRACT(EPOCH FROM (CAST($4 AS TIMESTAMPTZ) - created_at)) / 864 + 0.5) AS BIGINT)`
	nowArg := any(now)
	if db.Dialect == SQLite {
		// created_at is stored as Go writes a time ("… +0000 UTC", UTC
		// throughout); julianday reads the part before the zone, to the
		// millisecond.
		age = `CAST((julianday($4) - julianday(substr(created_at, 1, instr(created_at, ' +') - 1))) * 100 + 0.5 AS INTEGER)`
		nowArg = now.UTC().Format("2006-01-02 15:04:05.000000")
	}
	args := []any{bankID, from, to}
	// The two reads run side by side, on two connections of the pool.
	keyPass := make(chan statsByKey, 1)
	keyFrom, groupFrom := where, where
	if db.Dialect == SQLite {
		// Each grouping reads an index already in its order, so SQLite
		// groups rows as they come rather than sorting them all first
		// (the planner would take the time index, whose range is the
		// narrower, and sort). The period is then checked row by row:
		// created_at || '' compares as text, as the stored times do,
		// where the bare column's numeric affinity would try to read
		// every time as a number first (a third of the time spent).
		w := strings.Replace(where, "created_at >= $2 AND created_at < $3", "created_at || '' >= $2 AND created_at || '' < $3", 1)
		keyFrom = strings.Replace(w, "FROM memory_entries", "FROM memory_entries INDEXED BY memory_entries_key_time", 1)
		groupFrom = strings.Replace(w, "FROM memory_entries", "FROM memory_entries INDEXED BY memory_entries_bank_stats", 1)
	}
	go func() { keyPass <- db.memoryStatsByKey(ctx, `SELECT `+key+`, COUNT(*)`+keyFrom+` GROUP BY `+key, args) }()

	rows, err := db.R.QueryContext(ctx, `SELECT tokens, COALESCE(speaker, ''), speaker IS NULL, tags, COUNT(*),
		SUM(CASE WHEN summary THEN 1 ELSE 0 END), CAST(SUM(`+age+`) AS BIGINT)`+groupFrom+`
		GROUP BY tokens, speaker, tags`, append(args[:len(args):len(args)], nowArg)...)
	if err != nil {
		<-keyPass
		return s, err
	}
	tokens, speakers, tags, tagLists := map[int64]int{}, map[string]int{}, map[string]int{}, map[string][]string{}
	for rows.Next() {
		var (
			tok           int64
			speaker, list string
			noSpeaker     bool
			n, summaries  int
			ages          int64
		)
		if err := rows.Scan(&tok, &speaker, &noSpeaker, &list, &n, &summaries, &ages); err != nil {
			rows.Close()
			<-keyPass
			return s, err
		}
		s.Entries += n
		s.Summaries += summaries
		s.AgeHundredths += ages
		tokens[tok] += n
		if !noSpeaker {
			speakers[speaker] += n
		}
		if list == "[]" {
			continue
		}
		parsed, ok := tagLists[list]
		if !ok {
			_ = json.Unmarshal([]byte(list), &parsed)
			tagLists[list] = parsed
		}
		for _, t := range parsed {
			tags[t] += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || s.Entries == 0 {
		<-keyPass
		return s, err
	}
	s.Tokens = histogram(tokens)
	s.TopSpeakers, s.TopTags = topN(speakers), topN(tags)

	byKey := <-keyPass
	s.PerKey, s.TopKeys = byKey.perKey, byKey.top
	return s, byKey.err
}

// statsByKey is the second read of MemoryStatSummary: the histogram of
// entries per key and the largest keys.
type statsByKey struct {
	perKey []ValueCount
	top    []NameCount
	err    error
}

func (db *DB) memoryStatsByKey(ctx context.Context, query string, args []any) (out statsByKey) {
	rows, err := db.R.QueryContext(ctx, query, args...)
	if err != nil {
		return statsByKey{err: err}
	}
	defer rows.Close()
	perKey, keys := map[int64]int{}, map[string]int{}
	for rows.Next() {
		var (
			name string
			n    int
		)
		if err := rows.Scan(&name, &n); err != nil {
			return statsByKey{err: err}
		}
		perKey[int64(n)]++
		keys[name] = n
	}
	return statsByKey{perKey: histogram(perKey), top: topN(keys), err: rows.Err()}
}

// histogram turns value → count into bars in ascending value order.
func histogram(m map[int64]int) []ValueCount {
	out := make([]ValueCount, 0, len(m))
	for v, n := range m {
		out = append(out, ValueCount{v, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

// topN is the statTopN largest counts, ties in byte order of the name.
func topN(m map[string]int) []NameCount {
	out := make([]NameCount, 0, len(m))
	for k, n := range m {
		out = append(out, NameCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(statTopN, len(out))]
}

// MemoryStatNewest returns the creation time of the live entry of a bank
// created in [from, to) that has offset newer ones (0: the newest), read
// along the time index; oldest reads from the other end. ok is false when
// there is no such entry (entries deleted since they were counted).
func (db *DB) MemoryStatNewest(ctx context.Context, bankID string, from, to time.Time, offset int, oldest bool) (at time.Time, ok bool, err error) {
	dir := "DESC"
	if oldest {
		dir = "ASC"
	}
	err = db.R.QueryRowContext(ctx, `SELECT created_at FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL
		AND created_at >= $2 AND created_at < $3 ORDER BY created_at `+dir+` LIMIT 1 OFFSET $4`, bankID, from, to, offset).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return at, false, nil
	}
	return at.UTC(), err == nil, err
}
