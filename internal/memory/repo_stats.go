package memory

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The stats of a bank (GET /memory_banks/{id}/stats) added up in SQL
// from the totals kept per bank and UTC day (memory_stat_totals.go,
// migration 00195) for the whole days of the period, and from the entries
// themselves for the two partial days at its edges (read along the time
// index of migration 00192). Distributions come back as histograms (a
// value and how many entries have it), from which the memory area
// computes the exact average, 95th percentile, minimum and maximum; the
// average age from the count and the sum of creation times of each day;
// the age distribution's percentiles from the entries at the ranks it
// needs (MemoryStatNewest).

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

// StatDay is how many entries of the period were created on a UTC
// day and the sum of their times of day in microseconds.
type StatDay struct {
	Day                 time.Time // midnight, UTC
	Entries             int64
	CreatedMicroseconds int64
}

// StatSums is what a bank's live entries created in [from, to) add
// up to.
type StatSums struct {
	Entries, Summaries int
	Tokens             []ValueCount // entries per token count, ascending
	PerKey             []ValueCount // keys per entry count, ascending
	Days               []StatDay
	TopKeys            []NameCount // the 10 largest, ties in byte order
	TopSpeakers        []NameCount
	TopTags            []NameCount
}

const statTopN = 10

// memoryStatSpan splits [from, to) into the whole UTC days inside it
// (days ≥ firstDay and < endDay, as 'YYYY-MM-DD') and the partial edges
// [from, a) and [b, to) read from the entries. With no whole day inside,
// the one edge is the whole period and the other is empty.
func memoryStatSpan(from, to time.Time) (firstDay, endDay string, edges [2][2]time.Time) {
	from, to = from.UTC(), to.UTC()
	midnight := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	first, end := midnight(from), midnight(to)
	if first.Before(from) {
		first = first.AddDate(0, 0, 1)
	}
	if !first.Before(end) {
		d := first.Format(time.DateOnly)
		return d, d, [2][2]time.Time{{from, to}, {to, to}}
	}
	return first.Format(time.DateOnly), end.Format(time.DateOnly), [2][2]time.Time{{from, first}, {end, to}}
}

// MemoryStatSummary adds up a bank's live entries created in [from, to).
// The caller has checked that the bank is the account's.
//
// Three reads, each of the kept totals of the whole days and of the
// entries of the edges grouped alike: per day and token count (the
// tokens histogram, the counts, the days' sums of times), per key, per
// speaker and tag.
func (r repo) MemoryStatSummary(ctx context.Context, bankID string, from, to time.Time) (StatSums, error) {
	var s StatSums
	firstDay, endDay, span := memoryStatSpan(from, to)
	args := []any{bankID, firstDay, endDay, span[0][0], span[0][1], span[1][0], span[1][1]}
	const kept = ` WHERE bank_id = $1 AND day >= $2 AND day < $3`
	// The edges' entries: two range reads of the time index (one with an
	// OR of the two ranges would let store.SQLite read the bank's every entry
	// along another index).
	edge := func(lo, hi string) string {
		return `SELECT created_at, tokens, summary, partition_key, speaker, tags FROM memory_entries
			WHERE bank_id = $1 AND deleted_at IS NULL AND created_at >= $` + lo + ` AND created_at < $` + hi
	}
	edges := ` (` + edge("4", "5") + ` UNION ALL ` + edge("6", "7") + `) AS e`
	key, day := r.keyCol(), r.statDayCol("e.created_at")
	collate := ""
	if r.db.Dialect == store.Postgres {
		collate = ` COLLATE "C"`
	}

	// The keys' read, the largest, runs beside the others on a second
	// connection of the pool. The kept totals and the edges are two
	// queries merged here: a UNION ALL of them would be grouped by sorting
	// every (day, key) row of the period, where the totals alone are read
	// in key order off an index (store.SQLite; migration 00196).
	keyPass := make(chan statsByKey, 1)
	keysFrom := ` FROM memory_stat_keys`
	if r.db.Dialect == store.SQLite {
		keysFrom += ` INDEXED BY memory_stat_keys_by_key`
	}
	go func() {
		keyPass <- r.memoryStatsByKey(ctx,
			statQuery{`SELECT partition_key, CAST(SUM(entries) AS BIGINT)` + keysFrom + kept + ` GROUP BY partition_key`, args[:3]},
			statQuery{`SELECT e.` + key + `, COUNT(*) FROM (` + edge("2", "3") + ` UNION ALL ` + edge("4", "5") + `) AS e GROUP BY e.` + key,
				[]any{bankID, span[0][0], span[0][1], span[1][0], span[1][1]}})
	}()
	wait := func(err error) (StatSums, error) {
		<-keyPass
		return s, err
	}

	rows, err := r.db.R.QueryContext(ctx, `SELECT day, tokens, entries, summaries, created_us FROM memory_stat_tokens`+kept+`
		UNION ALL SELECT `+day+`, e.tokens, COUNT(*), SUM(CASE WHEN e.summary THEN 1 ELSE 0 END), CAST(SUM(`+r.statTimeOfDayCol("e.created_at")+`) AS BIGINT)
		FROM`+edges+` GROUP BY `+day+`, e.tokens`, args...)
	if err != nil {
		return wait(err)
	}
	tokens, days := map[int64]int{}, map[string]StatDay{}
	for rows.Next() {
		var (
			d                        string
			tok, n, summaries, micro int64
		)
		if err := rows.Scan(&d, &tok, &n, &summaries, &micro); err != nil {
			rows.Close()
			return wait(err)
		}
		s.Entries += int(n)
		s.Summaries += int(summaries)
		tokens[tok] += int(n)
		sum := days[d]
		sum.Entries += n
		sum.CreatedMicroseconds += micro
		days[d] = sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wait(err)
	}
	for d, sum := range days {
		if sum.Entries == 0 {
			continue
		}
		at, err := time.Parse(time.DateOnly, d)
		if err != nil {
			return wait(err)
		}
		sum.Day = at
		s.Days = append(s.Days, sum)
	}
	sort.Slice(s.Days, func(i, j int) bool { return s.Days[i].Day.Before(s.Days[j].Day) })
	if s.Entries == 0 {
		return wait(nil)
	}
	s.Tokens = histogram(tokens)

	speakers, tags := map[string]int{}, map[string]int{}
	rows, err = r.db.R.QueryContext(ctx, `SELECT kind, label, CAST(SUM(n) AS BIGINT) FROM (
		SELECT kind, label, entries AS n FROM memory_stat_labels`+kept+`
		UNION ALL SELECT 'speaker', e.speaker`+collate+`, COUNT(*) FROM`+edges+` WHERE e.speaker IS NOT NULL GROUP BY e.speaker`+collate+`
		UNION ALL SELECT 'tag', t.value`+collate+`, COUNT(*) FROM `+r.statTagsFrom(edges)+` GROUP BY t.value`+collate+`) AS l
		GROUP BY kind, label`, args...)
	if err != nil {
		return wait(err)
	}
	for rows.Next() {
		var (
			kind, label string
			n           int
		)
		if err := rows.Scan(&kind, &label, &n); err != nil {
			rows.Close()
			return wait(err)
		}
		if n == 0 {
			continue
		}
		if kind == "speaker" {
			speakers[label] = n
		} else {
			tags[label] = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wait(err)
	}
	s.TopSpeakers, s.TopTags = topN(speakers), topN(tags)

	byKey := <-keyPass
	s.PerKey, s.TopKeys = byKey.perKey, byKey.top
	return s, byKey.err
}

// statsByKey is the keys' read of MemoryStatSummary: the histogram of
// entries per key and the largest keys.
type statsByKey struct {
	perKey []ValueCount
	top    []NameCount
	err    error
}

// statQuery is a query and its arguments.
type statQuery struct {
	sql  string
	args []any
}

func (r repo) memoryStatsByKey(ctx context.Context, queries ...statQuery) (out statsByKey) {
	keys := map[string]int{}
	for _, q := range queries {
		rows, err := r.db.R.QueryContext(ctx, q.sql, q.args...)
		if err != nil {
			return statsByKey{err: err}
		}
		for rows.Next() {
			var (
				name string
				n    int
			)
			if err := rows.Scan(&name, &n); err != nil {
				rows.Close()
				return statsByKey{err: err}
			}
			keys[name] += n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return statsByKey{err: err}
		}
	}
	perKey := map[int64]int{}
	for name, n := range keys {
		if n == 0 {
			delete(keys, name)
			continue
		}
		perKey[int64(n)]++
	}
	return statsByKey{perKey: histogram(perKey), top: topN(keys)}
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
func (r repo) MemoryStatNewest(ctx context.Context, bankID string, from, to time.Time, offset int, oldest bool) (at time.Time, ok bool, err error) {
	dir := "DESC"
	if oldest {
		dir = "ASC"
	}
	err = r.db.R.QueryRowContext(ctx, `SELECT created_at FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL
		AND created_at >= $2 AND created_at < $3 ORDER BY created_at `+dir+` LIMIT 1 OFFSET $4`, bankID, from, to, offset).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return at, false, nil
	}
	return at.UTC(), err == nil, err
}
