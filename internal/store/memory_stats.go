package store

import (
	"context"
	"sort"
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
func (db *DB) MemoryStatSummary(ctx context.Context, bankID string, from, to, now time.Time) (MemoryStatSums, error) {
	var s MemoryStatSums
	const where = ` FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL AND created_at >= $2 AND created_at < $3`
	key, text := db.keyCol(), `COLLATE "C"`
	// The age of an entry in hundredths of a day, rounded half up (ages
	// are not negative): 864 seconds is a hundredth of a day.
	age := `CAST(FLOOR(EXTRACT(EPOCH FROM (CAST($4 AS TIMESTAMPTZ) - created_at)) / 864 + 0.5) AS BIGINT)`
	nowArg := any(now)
	tags := `jsonb_array_elements_text(CAST(tags AS JSONB)) AS t(value)`
	if db.Dialect == SQLite {
		// created_at is stored as Go writes a time ("… +0000 UTC", UTC
		// throughout); julianday reads the part before the zone, to the
		// millisecond.
		age = `CAST((julianday($4) - julianday(substr(created_at, 1, instr(created_at, ' +') - 1))) * 100 + 0.5 AS INTEGER)`
		nowArg, text = now.UTC().Format("2006-01-02 15:04:05.000000"), ``
		tags = `json_each(memory_entries.tags) AS t`
	}
	args := []any{bankID, from, to}

	// Counts, summaries, the tokens histogram and the ages' sum: one pass.
	rows, err := db.R.QueryContext(ctx, `SELECT tokens, COUNT(*), SUM(CASE WHEN summary THEN 1 ELSE 0 END), CAST(SUM(`+age+`) AS BIGINT)`+where+`
		GROUP BY tokens ORDER BY tokens`, append(args, nowArg)...)
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var v ValueCount
		var summaries int
		var ages int64
		if err := rows.Scan(&v.Value, &v.Count, &summaries, &ages); err != nil {
			rows.Close()
			return s, err
		}
		s.Tokens = append(s.Tokens, v)
		s.Entries += v.Count
		s.Summaries += summaries
		s.AgeHundredths += ages
	}
	rows.Close()
	if err := rows.Err(); err != nil || s.Entries == 0 {
		return s, err
	}

	// Per key: the ten largest and the histogram of entries per key, from
	// one grouping.
	rows, err = db.R.QueryContext(ctx, `WITH k AS (SELECT `+key+` AS name, COUNT(*) AS n`+where+` GROUP BY `+key+`)
		SELECT * FROM (SELECT 0 AS part, name, n, 0 AS keys FROM k ORDER BY n DESC, name LIMIT `+itoa(statTopN)+`) AS top
		UNION ALL SELECT 1, '', n, COUNT(*) FROM k GROUP BY n`, args...)
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var (
			part, n, keys int
			name          string
		)
		if err := rows.Scan(&part, &name, &n, &keys); err != nil {
			rows.Close()
			return s, err
		}
		if part == 0 {
			s.TopKeys = append(s.TopKeys, NameCount{name, n})
		} else {
			s.PerKey = append(s.PerKey, ValueCount{int64(n), keys})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s, err
	}
	sortValueCounts(s.PerKey)

	if s.TopSpeakers, err = db.topNames(ctx, `SELECT speaker `+text+`, COUNT(*)`+where+` AND speaker IS NOT NULL
		GROUP BY speaker `+text+` ORDER BY 2 DESC, 1 LIMIT `+itoa(statTopN), args); err != nil {
		return s, err
	}
	// Most entries carry no tag: those are skipped before any JSON is read.
	s.TopTags, err = db.topNames(ctx, `SELECT t.value `+text+`, COUNT(*) FROM memory_entries, `+tags+`
		WHERE bank_id = $1 AND deleted_at IS NULL AND created_at >= $2 AND created_at < $3 AND tags <> '[]'
		GROUP BY t.value `+text+` ORDER BY 2 DESC, 1 LIMIT `+itoa(statTopN), args)
	return s, err
}

func (db *DB) topNames(ctx context.Context, q string, args []any) ([]NameCount, error) {
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []NameCount
	for rows.Next() {
		var c NameCount
		if err := rows.Scan(&c.Name, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func sortValueCounts(v []ValueCount) {
	sort.Slice(v, func(i, j int) bool { return v[i].Value < v[j].Value })
}

// MemoryStatNewest returns the creation time of the live entry of a bank
// created in [from, to) that has offset newer ones (0: the newest), read
// along the time index; oldest reads from the other end.
func (db *DB) MemoryStatNewest(ctx context.Context, bankID string, from, to time.Time, offset int, oldest bool) (time.Time, error) {
	dir := "DESC"
	if oldest {
		dir = "ASC"
	}
	var at time.Time
	err := db.R.QueryRowContext(ctx, `SELECT created_at FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL
		AND created_at >= $2 AND created_at < $3 ORDER BY created_at `+dir+` LIMIT 1 OFFSET $4`, bankID, from, to, offset).Scan(&at)
	return at.UTC(), err
}
