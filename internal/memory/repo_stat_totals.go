package memory

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// A bank's stats (GET /memory_banks/{id}/stats) read totals kept per bank
// and UTC day (migration 00195) rather than every entry of the period:
// per token count (with the summaries and the sum of creation times), per
// key, per speaker and per tag. Every write of memory_entries changes
// them in its own transaction, by the same amounts: an insert adds its
// entry, a compaction takes off the entries it replaces and adds its
// summary, the retention sweep takes off what it deletes, a reset or a
// deleted bank drops the bank's totals. The changes are UPSERTs that add
// to the row (n = n + excluded.n), so two writers of one bank and day
// never lose one another's count; they are written last in the
// transaction, in one order (table, then primary key), so the row locks
// PostgreSQL holds until commit are held briefly and never taken in
// crossed orders. Rows are per bank: writers of different banks never
// share one.
//
// Whoever writes memory_entries by other means (a test seeding with SQL)
// calls RebuildMemoryStats for the bank afterwards.

// statDay is the day an entry counts for ('YYYY-MM-DD', UTC) and its time
// of day in microseconds.
func statDay(at time.Time) (string, int64) {
	at = at.UTC()
	midnight := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	return at.Format(time.DateOnly), at.Sub(midnight).Microseconds()
}

type statTokensKey struct {
	bank, day string
	tokens    int64
}

type statTokensSums struct{ entries, summaries, createdUS int64 }

type statKeyKey struct{ bank, day, key string }

type statLabelKey struct{ bank, day, kind, label string }

// statDelta is what a write changes the totals by.
type statDelta struct {
	tokens map[statTokensKey]statTokensSums
	keys   map[statKeyKey]int64
	labels map[statLabelKey]int64
}

func newStatDelta() *statDelta {
	return &statDelta{tokens: map[statTokensKey]statTokensSums{}, keys: map[statKeyKey]int64{}, labels: map[statLabelKey]int64{}}
}

// add counts e in (sign 1) or out (sign -1). The stored time is what
// counts: callers pass entries as written (times to the microsecond).
func (d *statDelta) add(e Entry, sign int64) {
	day, us := statDay(e.CreatedAt)
	t := d.tokens[statTokensKey{e.BankID, day, int64(e.Tokens)}]
	t.entries += sign
	t.createdUS += sign * us
	if e.Summary {
		t.summaries += sign
	}
	d.tokens[statTokensKey{e.BankID, day, int64(e.Tokens)}] = t
	d.keys[statKeyKey{e.BankID, day, e.Partition}] += sign
	if e.Speaker != nil {
		d.labels[statLabelKey{e.BankID, day, "speaker", *e.Speaker}] += sign
	}
	for _, tag := range e.Tags {
		d.labels[statLabelKey{e.BankID, day, "tag", tag}] += sign
	}
}

// statBatch is how many rows one UPSERT writes (six values a row at most,
// well within both databases' limit on parameters).
const statBatch = 200

// statTable is one totals table: its primary key's columns, then the
// counts, which an UPSERT adds to; entries is the first count.
type statTable struct {
	name   string
	key    []string
	counts []string
}

var (
	statTokensTable = statTable{"memory_stat_tokens", []string{"bank_id", "day", "tokens"}, []string{"entries", "summaries", "created_us"}}
	statKeysTable   = statTable{"memory_stat_keys", []string{"bank_id", "day", "partition_key"}, []string{"entries"}}
	statLabelsTable = statTable{"memory_stat_labels", []string{"bank_id", "day", "kind", "label"}, []string{"entries"}}
)

// apply writes d in tx, one table after the other, each in primary key
// order. Rows that reach zero are deleted (only a decrement gets there),
// so a key with no live entry left is not counted.
func (d *statDelta) apply(ctx context.Context, tx *sql.Tx) error {
	var tokens, keys, labels [][]any
	for _, k := range sortedKeys(d.tokens, func(a, b statTokensKey) int {
		return cmp.Or(cmp.Compare(a.bank, b.bank), cmp.Compare(a.day, b.day), cmp.Compare(a.tokens, b.tokens))
	}) {
		if s := d.tokens[k]; s != (statTokensSums{}) {
			tokens = append(tokens, []any{k.bank, k.day, k.tokens, s.entries, s.summaries, s.createdUS})
		}
	}
	for _, k := range sortedKeys(d.keys, func(a, b statKeyKey) int {
		return cmp.Or(cmp.Compare(a.bank, b.bank), cmp.Compare(a.day, b.day), cmp.Compare(a.key, b.key))
	}) {
		if n := d.keys[k]; n != 0 {
			keys = append(keys, []any{k.bank, k.day, k.key, n})
		}
	}
	for _, k := range sortedKeys(d.labels, func(a, b statLabelKey) int {
		return cmp.Or(cmp.Compare(a.bank, b.bank), cmp.Compare(a.day, b.day), cmp.Compare(a.kind, b.kind), cmp.Compare(a.label, b.label))
	}) {
		if n := d.labels[k]; n != 0 {
			labels = append(labels, []any{k.bank, k.day, k.kind, k.label, n})
		}
	}
	if err := statTokensTable.upsert(ctx, tx, tokens); err != nil {
		return err
	}
	if err := statKeysTable.upsert(ctx, tx, keys); err != nil {
		return err
	}
	return statLabelsTable.upsert(ctx, tx, labels)
}

// withInsert is one PostgreSQL statement that runs insert (an INSERT of
// one entry, with args, that takes the bank's row lock first) and, when
// it inserted a row, adds d (which only adds) to the totals; it answers
// how many rows insert wrote. Each sub-statement of the totals reads the
// one before it, so they run one after the other in the order apply
// writes (the tables in turn, each one's rows sorted) and the row locks
// are taken in the same order as a transaction of apply takes them.
func (d *statDelta) withInsert(insert string, args []any) (string, []any) {
	var q strings.Builder
	q.WriteString("WITH added AS (" + insert + " RETURNING 1)")
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	prev, n := "added", 0
	step := func(sql string) {
		n++
		name := "totals" + strconv.Itoa(n)
		q.WriteString(", " + name + " AS (" + strings.Replace(sql, "FROM prev", "FROM "+prev, 1) + " RETURNING 1)")
		prev = name
	}
	for _, k := range sortedKeys(d.tokens, func(a, b statTokensKey) int {
		return cmp.Or(cmp.Compare(a.bank, b.bank), cmp.Compare(a.day, b.day), cmp.Compare(a.tokens, b.tokens))
	}) {
		t := d.tokens[k]
		step(fmt.Sprintf(`INSERT INTO memory_stat_tokens (bank_id, day, tokens, entries, summaries, created_us)
			SELECT %s, %s, CAST(%s AS INTEGER), CAST(%s AS BIGINT), CAST(%s AS BIGINT), CAST(%s AS BIGINT) FROM prev
			ON CONFLICT (bank_id, day, tokens) DO UPDATE SET entries = memory_stat_tokens.entries + excluded.entries,
			summaries = memory_stat_tokens.summaries + excluded.summaries, created_us = memory_stat_tokens.created_us + excluded.created_us`,
			param(k.bank), param(k.day), param(k.tokens), param(t.entries), param(t.summaries), param(t.createdUS)))
	}
	for _, k := range sortedKeys(d.keys, func(a, b statKeyKey) int {
		return cmp.Or(cmp.Compare(a.bank, b.bank), cmp.Compare(a.day, b.day), cmp.Compare(a.key, b.key))
	}) {
		step(fmt.Sprintf(`INSERT INTO memory_stat_keys (bank_id, day, partition_key, entries) SELECT %s, %s, %s, CAST(%s AS BIGINT) FROM prev
			ON CONFLICT (bank_id, day, partition_key) DO UPDATE SET entries = memory_stat_keys.entries + excluded.entries`,
			param(k.bank), param(k.day), param(k.key), param(d.keys[k])))
	}
	for _, k := range sortedKeys(d.labels, func(a, b statLabelKey) int {
		return cmp.Or(cmp.Compare(a.bank, b.bank), cmp.Compare(a.day, b.day), cmp.Compare(a.kind, b.kind), cmp.Compare(a.label, b.label))
	}) {
		step(fmt.Sprintf(`INSERT INTO memory_stat_labels (bank_id, day, kind, label, entries) SELECT %s, %s, %s, %s, CAST(%s AS BIGINT) FROM prev
			ON CONFLICT (bank_id, day, kind, label) DO UPDATE SET entries = memory_stat_labels.entries + excluded.entries`,
			param(k.bank), param(k.day), param(k.kind), param(k.label), param(d.labels[k])))
	}
	// The main query reads the last, which reads the one before, … and
	// the first reads added.
	q.WriteString(" SELECT COUNT(*) FROM " + prev)
	return q.String(), args
}

func sortedKeys[K comparable, V any](m map[K]V, order func(a, b K) int) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, order)
	return out
}

// upsert adds rows (the key's values, then the counts') to the table's
// in batches, then deletes the rows that reached zero.
func (t statTable) upsert(ctx context.Context, tx *sql.Tx, rows [][]any) error {
	width := len(t.key) + len(t.counts)
	sets := make([]string, len(t.counts))
	for i, c := range t.counts {
		sets[i] = c + " = " + t.name + "." + c + " + excluded." + c
	}
	var gone [][]any
	for start := 0; start < len(rows); start += statBatch {
		batch := rows[start:min(start+statBatch, len(rows))]
		var (
			q    strings.Builder
			args []any
		)
		q.WriteString("INSERT INTO " + t.name + " (" + strings.Join(t.key, ", ") + ", " + strings.Join(t.counts, ", ") + ") VALUES ")
		for i, r := range batch {
			if i > 0 {
				q.WriteString(",")
			}
			q.WriteString("(" + store.Placeholders(len(args)+1, width) + ")")
			args = append(args, r...)
		}
		q.WriteString(" ON CONFLICT (" + strings.Join(t.key, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ") +
			" RETURNING " + strings.Join(t.key, ", ") + ", entries")
		res, err := tx.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return err
		}
		for res.Next() {
			key := make([]any, len(t.key))
			dest := make([]any, len(t.key)+1)
			for i := range key {
				dest[i] = &key[i]
			}
			var n int64
			dest[len(key)] = &n
			if err := res.Scan(dest...); err != nil {
				res.Close()
				return err
			}
			if n == 0 {
				gone = append(gone, key)
			}
		}
		res.Close()
		if err := res.Err(); err != nil {
			return err
		}
	}
	for start := 0; start < len(gone); start += statBatch {
		batch := gone[start:min(start+statBatch, len(gone))]
		var (
			q    strings.Builder
			args []any
		)
		q.WriteString("DELETE FROM " + t.name + " WHERE entries = 0 AND (")
		for i, k := range batch {
			if i > 0 {
				q.WriteString(" OR ")
			}
			q.WriteString("(")
			for j, c := range t.key {
				if j > 0 {
					q.WriteString(" AND ")
				}
				args = append(args, k[j])
				q.WriteString(c + " = $" + strconv.Itoa(len(args)))
			}
			q.WriteString(")")
		}
		q.WriteString(")")
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// dropMemoryStats deletes a bank's totals (its entries are all being
// deleted in the same transaction).
func dropMemoryStats(ctx context.Context, tx *sql.Tx, bankID string) error {
	for _, table := range []string{"memory_stat_tokens", "memory_stat_keys", "memory_stat_labels"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE bank_id = $1`, bankID); err != nil {
			return err
		}
	}
	return nil
}

// The SQL that adds up entries the way the totals count them: the day,
// the time of day in microseconds. created_at is stored on store.SQLite as Go
// writes a UTC time ("2006-01-02 15:04:05.999999999 +0000 UTC"): the day
// is its first ten characters, the time of day the next ones, the
// fraction (0 to 9 digits) read to the microsecond. Migration 00195
// backfills with the same expressions.
func (r repo) statDayCol(col string) string {
	if r.db.Dialect == store.Postgres {
		return `to_char(` + col + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
	}
	return `substr(` + col + `, 1, 10)`
}

func (r repo) statTimeOfDayCol(col string) string {
	if r.db.Dialect == store.Postgres {
		return `CAST(EXTRACT(EPOCH FROM (` + col + ` AT TIME ZONE 'UTC') - date_trunc('day', ` + col + ` AT TIME ZONE 'UTC')) * 1000000 AS BIGINT)`
	}
	return `(((CAST(substr(` + col + `, 12, 2) AS INTEGER) * 60 + CAST(substr(` + col + `, 15, 2) AS INTEGER)) * 60
		+ CAST(substr(` + col + `, 18, 2) AS INTEGER)) * 1000000
		+ CAST(substr(substr(` + col + `, 20, instr(` + col + `, ' +') - 20) || '0000000', 2, 6) AS INTEGER))`
}

// statTagsFrom is a FROM clause over entries (a table or subquery named
// e) joined with their tags t(value).
func (r repo) statTagsFrom(entries string) string {
	if r.db.Dialect == store.Postgres {
		return entries + ` CROSS JOIN LATERAL jsonb_array_elements_text(CAST(e.tags AS JSONB)) AS t(value)`
	}
	return entries + `, json_each(e.tags) t`
}

// RebuildMemoryStats counts a bank's totals afresh from its entries: for
// whoever wrote memory_entries without keeping them (a test seeding with
// SQL). Migration 00195 did the same for every bank.
func (r repo) RebuildMemoryStats(ctx context.Context, bankID string) error {
	day, tod := r.statDayCol("created_at"), r.statTimeOfDayCol("created_at")
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := dropMemoryStats(ctx, tx, bankID); err != nil {
			return err
		}
		for _, q := range []string{
			`INSERT INTO memory_stat_tokens (bank_id, day, tokens, entries, summaries, created_us)
			SELECT bank_id, ` + day + `, tokens, COUNT(*), SUM(CASE WHEN summary THEN 1 ELSE 0 END), SUM(` + tod + `)
			FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL GROUP BY bank_id, ` + day + `, tokens`,
			`INSERT INTO memory_stat_keys (bank_id, day, partition_key, entries)
			SELECT bank_id, ` + day + `, partition_key, COUNT(*)
			FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL GROUP BY bank_id, ` + day + `, partition_key`,
			`INSERT INTO memory_stat_labels (bank_id, day, kind, label, entries)
			SELECT bank_id, ` + day + `, 'speaker', speaker, COUNT(*)
			FROM memory_entries WHERE bank_id = $1 AND deleted_at IS NULL AND speaker IS NOT NULL GROUP BY bank_id, ` + day + `, speaker`,
			`INSERT INTO memory_stat_labels (bank_id, day, kind, label, entries)
			SELECT e.bank_id, ` + r.statDayCol("e.created_at") + `, 'tag', t.value, COUNT(*)
			FROM ` + r.statTagsFrom("memory_entries e") + ` WHERE e.bank_id = $1 AND e.deleted_at IS NULL GROUP BY e.bank_id, ` + r.statDayCol("e.created_at") + `, t.value`,
		} {
			if _, err := tx.ExecContext(ctx, q, bankID); err != nil {
				return err
			}
		}
		return nil
	})
}

// StatRow is one kept total: a table's row without the bank.
type StatRow struct {
	Table, Day, Name    string
	Entries, Summaries  int64
	CreatedMicroseconds int64
}

// MemoryStatRows lists a bank's kept totals in order (table, day,
// name): what a test compares with a count afresh (RebuildMemoryStats).
func (r repo) MemoryStatRows(ctx context.Context, bankID string) ([]StatRow, error) {
	rows, err := store.All(ctx, r.db.W, func(s store.Scanner) (StatRow, error) {
		var r StatRow
		return r, s.Scan(&r.Table, &r.Day, &r.Name, &r.Entries, &r.Summaries, &r.CreatedMicroseconds)
	}, `SELECT 'tokens', day, CAST(tokens AS TEXT), entries, summaries, created_us FROM memory_stat_tokens WHERE bank_id = $1
	UNION ALL SELECT 'key', day, CAST(partition_key AS TEXT), entries, 0, 0 FROM memory_stat_keys WHERE bank_id = $1
	UNION ALL SELECT kind, day, CAST(label AS TEXT), entries, 0, 0 FROM memory_stat_labels WHERE bank_id = $1`, bankID)
	slices.SortFunc(rows, func(a, b StatRow) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Day, b.Day), cmp.Compare(a.Name, b.Name))
	})
	return rows, err
}
