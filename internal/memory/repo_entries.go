package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// Entry is one entry of a memory bank: a conversation turn, a
// general entry, or a summary compaction wrote in place of older ones.
type Entry struct {
	ID, AccountID, BankID string
	// Partition is the conversation_key (conversation banks) or group_key
	// (general banks); "" when none was given.
	Partition string
	Speaker   *string
	Content   string
	Metadata  map[string]any
	Tags      []string
	Tokens    int
	Summary   bool
	ContentID *string // the indexed content of a general bank's entry
	RunID     *string
	CreatedAt time.Time
}

// ErrCompactionConflict means some entries a compaction meant to replace
// were replaced (or deleted) meanwhile; nothing was written.
var ErrCompactionConflict = errors.New("memory entries changed during compaction")

const memoryEntryColumns = `id, account_id, bank_id, partition_key, speaker, content, metadata, tags, tokens, summary, content_id, run_id, created_at`

// The order entries of a partition are read in: summaries (which stand for
// the oldest entries) first, then by time.
const memoryEntryOrder = `summary DESC, created_at, id`

func scanMemoryEntry(r store.Scanner) (Entry, error) {
	var (
		e                 Entry
		speaker, cid, run sql.NullString
		meta, tags        string
	)
	err := r.Scan(&e.ID, &e.AccountID, &e.BankID, &e.Partition, &speaker, &e.Content, &meta, &tags, &e.Tokens, &e.Summary, &cid, &run, &e.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return e, store.ErrNotFound
	}
	if err != nil {
		return e, err
	}
	e.Speaker, e.ContentID, e.RunID = store.StringOrNil(speaker), store.StringOrNil(cid), store.StringOrNil(run)
	_ = json.Unmarshal([]byte(meta), &e.Metadata)
	_ = json.Unmarshal([]byte(tags), &e.Tags)
	if e.Metadata == nil {
		e.Metadata = map[string]any{}
	}
	if e.Tags == nil {
		e.Tags = []string{}
	}
	e.CreatedAt = e.CreatedAt.UTC()
	return e, nil
}

func memoryEntryArgs(e Entry) []any {
	meta, _ := json.Marshal(e.Metadata)
	if e.Metadata == nil {
		meta = []byte("{}")
	}
	tags, _ := json.Marshal(e.Tags)
	if e.Tags == nil {
		tags = []byte("[]")
	}
	return []any{e.ID, e.AccountID, e.BankID, e.Partition, e.Speaker, e.Content, string(meta), string(tags), e.Tokens, e.Summary, e.ContentID, e.RunID, e.CreatedAt}
}

func insertMemoryEntry(ctx context.Context, ex interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, e Entry) error {
	_, err := ex.ExecContext(ctx, `INSERT INTO memory_entries (`+memoryEntryColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`, memoryEntryArgs(e)...)
	return err
}

// AddMemoryEntry stores e durably (committed when this returns) and
// returns it with its id and time. The bank must be a live bank of the
// account: one statement checks that and inserts; the bank's stat totals
// (memory_stat_totals.go) count the entry in the same transaction. On
// PostgreSQL the insert and the totals are one statement, one round trip
// as the insert alone was (add_chat_turn's hot path); on store.SQLite, where a
// statement costs no round trip, a transaction of them.
func (r repo) AddMemoryEntry(ctx context.Context, e Entry) (Entry, error) {
	e.ID, e.CreatedAt = store.NewID(), store.Now()
	insert := `INSERT INTO memory_entries (` + memoryEntryColumns + `)
		SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13 WHERE EXISTS (
			SELECT 1 FROM memory_banks WHERE account_id = $2 AND id = $3 AND deleted_at IS NULL)`
	d := newStatDelta()
	d.add(e, 1)
	if r.db.Dialect == store.Postgres {
		// The bank's row is key-share locked before any total is (as the
		// insert's foreign key check does, but that runs at the end of
		// the statement): a reset or a deletion of the bank, which locks
		// the row first, then never waits on a total this statement
		// holds while it waits on the bank.
		insert = strings.Replace(insert, `deleted_at IS NULL)`, `deleted_at IS NULL FOR KEY SHARE)`, 1)
		q, args := d.withInsert(insert, memoryEntryArgs(e))
		var n int
		if err := r.db.W.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			return e, err
		}
		if n == 0 {
			return e, store.ErrNotFound
		}
		return e, nil
	}
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, insert, memoryEntryArgs(e)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		return d.apply(ctx, tx)
	})
	return e, err
}

// SetMemoryEntryContent records the indexed content of an entry.
func (r repo) SetMemoryEntryContent(ctx context.Context, accountID, id, contentID string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE memory_entries SET content_id = $1 WHERE account_id = $2 AND id = $3`, contentID, accountID, id)
	return err
}

// LatestMemoryEntries returns the newest limit live entries of a
// partition, oldest first: the newest turns, preceded by summaries when
// fewer turns than limit remain. Each half is one index range read
// backwards, so the cost does not grow with the partition.
func (r repo) LatestMemoryEntries(ctx context.Context, accountID, bankID, partition string, limit int) ([]Entry, error) {
	var out []Entry
	for _, q := range []string{
		`SELECT ` + memoryEntryColumns + ` FROM memory_entries WHERE bank_id = $1 AND partition_key = $2 AND summary = FALSE
		AND deleted_at IS NULL AND account_id = $3 ORDER BY summary DESC, created_at DESC, id DESC LIMIT $4`,
		`SELECT ` + memoryEntryColumns + ` FROM memory_entries WHERE bank_id = $1 AND partition_key = $2 AND summary = TRUE
		AND deleted_at IS NULL AND account_id = $3 ORDER BY summary DESC, created_at DESC, id DESC LIMIT $4`,
	} {
		if len(out) >= limit {
			break
		}
		st, err := r.db.Prepared(ctx, q)
		if err != nil {
			return nil, err
		}
		rows, err := st.QueryContext(ctx, bankID, partition, accountID, limit-len(out))
		if err != nil {
			return nil, err
		}
		part, err := collectMemoryEntries(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if out == nil {
		out = []Entry{}
	}
	return out, nil
}

// OldestMemoryEntries returns the oldest limit live entries of a
// partition, oldest first (summaries first).
func (r repo) OldestMemoryEntries(ctx context.Context, accountID, bankID, partition string, limit int) ([]Entry, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+memoryEntryColumns+` FROM memory_entries WHERE bank_id = $1 AND partition_key = $2
		AND deleted_at IS NULL AND account_id = $3 ORDER BY `+memoryEntryOrder+` LIMIT $4`, bankID, partition, accountID, limit)
	if err != nil {
		return nil, err
	}
	return collectMemoryEntries(rows)
}

// EntryFilter selects entries of a bank for load_memory and the
// dry runs: one partition or all (Partition nil), newest or oldest first.
type EntryFilter struct {
	Partition *string
	Newest    bool
	Limit     int
}

// MemoryEntries lists live entries of a bank.
func (r repo) MemoryEntries(ctx context.Context, accountID, bankID string, q EntryFilter) ([]Entry, error) {
	where, args := `account_id = $1 AND bank_id = $2 AND deleted_at IS NULL`, []any{accountID, bankID}
	if q.Partition != nil {
		args = append(args, *q.Partition)
		where += ` AND partition_key = $3`
	}
	order := memoryEntryOrder
	if q.Newest {
		order = `created_at DESC, id DESC`
	}
	args = append(args, q.Limit)
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+memoryEntryColumns+` FROM memory_entries WHERE `+where+` ORDER BY `+order+` LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, err
	}
	return collectMemoryEntries(rows)
}

// MemoryEntriesByContent returns the live entries of a bank indexed as the
// given contents, by content id.
func (r repo) MemoryEntriesByContent(ctx context.Context, accountID, bankID string, contentIDs []string) (map[string]Entry, error) {
	out := map[string]Entry{}
	if len(contentIDs) == 0 {
		return out, nil
	}
	args := []any{accountID, bankID}
	ph := make([]string, len(contentIDs))
	for i, id := range contentIDs {
		args = append(args, id)
		ph[i] = "$" + strconv.Itoa(len(args))
	}
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+memoryEntryColumns+` FROM memory_entries WHERE account_id = $1 AND bank_id = $2
		AND deleted_at IS NULL AND content_id IN (`+strings.Join(ph, ",")+`)`, args...)
	if err != nil {
		return nil, err
	}
	list, err := collectMemoryEntries(rows)
	for _, e := range list {
		out[*e.ContentID] = e
	}
	return out, err
}

func collectMemoryEntries(rows *sql.Rows) ([]Entry, error) {
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		e, err := scanMemoryEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Partition sums up the live entries of one partition.
type Partition struct {
	Key     string
	Entries int
	Tokens  int
	Oldest  time.Time // of the oldest non-summary entry (zero when none)
}

// MemoryPartitions sums up the live entries of a bank per partition (only
// the one partition when key is non-nil).
func (r repo) MemoryPartitions(ctx context.Context, accountID, bankID string, key *string) ([]Partition, error) {
	where, args := `account_id = $1 AND bank_id = $2 AND deleted_at IS NULL`, []any{accountID, bankID}
	if key != nil {
		where += ` AND partition_key = $3`
		args = append(args, *key)
	}
	rows, err := r.db.R.QueryContext(ctx, `SELECT partition_key, COUNT(*), COALESCE(SUM(tokens), 0),
		MIN(CASE WHEN summary THEN NULL ELSE created_at END) FROM memory_entries WHERE `+where+` GROUP BY partition_key ORDER BY partition_key`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Partition
	for rows.Next() {
		var (
			p      Partition
			oldest any
		)
		if err := rows.Scan(&p.Key, &p.Entries, &p.Tokens, &oldest); err != nil {
			return nil, err
		}
		p.Oldest = anyTime(oldest)
		out = append(out, p)
	}
	return out, rows.Err()
}

// anyTime reads an aggregate's timestamp, which store.SQLite hands back as text.
func anyTime(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t.UTC()
	case string:
		for _, layout := range []string{"2006-01-02 15:04:05.999999999 -0700 MST", "2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"} {
			if p, err := time.Parse(layout, t); err == nil {
				return p.UTC()
			}
		}
	case []byte:
		return anyTime(string(t))
	}
	return time.Time{}
}

// ReplaceMemoryEntries soft-deletes the entries ids of a partition and
// writes summary in their place, in one transaction: afterwards either
// both happened or neither did. When any of ids is no longer live
// (another compaction got there first) it writes nothing and returns
// ErrCompactionConflict. It returns the summary as stored. The bank's
// stat totals lose the replaced entries and gain the summary in the same
// transaction.
func (r repo) ReplaceMemoryEntries(ctx context.Context, accountID, bankID, partition string, ids []string, summary Entry) (Entry, error) {
	summary.ID, summary.AccountID, summary.BankID, summary.Partition, summary.Summary = store.NewID(), accountID, bankID, partition, true
	if summary.CreatedAt.IsZero() {
		summary.CreatedAt = store.Now()
	}
	// Stored to the microsecond, as the totals count it.
	summary.CreatedAt = summary.CreatedAt.UTC().Truncate(time.Microsecond)
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// Compactions of a bank's partitions share its row; a reset
		// (ClearMemoryBankSource) and the retention sweep take it alone.
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM memory_banks WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`+r.db.LockFor("SHARE"),
			accountID, bankID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		now := store.Now()
		d := newStatDelta()
		for start := 0; start < len(ids); start += 500 {
			batch := ids[start:min(start+500, len(ids))]
			args := []any{now, accountID, bankID, partition}
			ph := make([]string, len(batch))
			for i, id := range batch {
				args = append(args, id)
				ph[i] = "$" + strconv.Itoa(len(args))
			}
			rows, err := tx.QueryContext(ctx, `UPDATE memory_entries SET deleted_at = $1 WHERE account_id = $2 AND bank_id = $3 AND partition_key = $4
				AND deleted_at IS NULL AND id IN (`+strings.Join(ph, ",")+`) RETURNING created_at, tokens, summary, speaker, tags`, args...)
			if err != nil {
				return err
			}
			n, err := countOut(rows, d, bankID, &partition, nil)
			if err != nil {
				return err
			}
			if n != len(batch) {
				return ErrCompactionConflict
			}
		}
		if err := insertMemoryEntry(ctx, tx, summary); err != nil {
			return err
		}
		d.add(summary, 1)
		return d.apply(ctx, tx)
	})
	return summary, err
}

// countOut reads rows of (created_at, tokens, summary, speaker, tags)
// (and a content id and whether the entry was live, when contents is
// non-nil) of entries of a bank just deleted, takes the live ones off d
// and returns how many rows there were. partition is nil when the rows
// carry their key after the tags.
func countOut(rows *sql.Rows, d *statDelta, bankID string, partition *string, contents *[]string) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var (
			at      any
			e       = Entry{BankID: bankID}
			speaker sql.NullString
			tags    string
			live    = true
			content sql.NullString
		)
		dest := []any{&at, &e.Tokens, &e.Summary, &speaker, &tags}
		if partition == nil {
			dest = append(dest, &e.Partition)
		} else {
			e.Partition = *partition
		}
		if contents != nil {
			dest = append(dest, &content, &live)
		}
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		n++
		if content.Valid {
			*contents = append(*contents, content.String)
		}
		if !live {
			continue
		}
		e.CreatedAt, e.Speaker = anyTime(at), store.StringOrNil(speaker)
		_ = json.Unmarshal([]byte(tags), &e.Tags)
		d.add(e, -1)
	}
	return n, rows.Err()
}

// ExpireMemoryEntries hard-deletes the entries of a bank created before
// cut, and returns the indexed contents they had. The bank's stat totals
// of the days before cut's go with them; those of cut's own day lose the
// live entries deleted from it.
func (r repo) ExpireMemoryEntries(ctx context.Context, accountID, bankID string, cut time.Time) ([]string, error) {
	var contents []string
	cutDay, _ := statDay(cut)
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// The bank's row orders the sweep against a compaction (which
		// could otherwise write a summary dated before cut while the
		// sweep deletes what is before it) and a reset, not against
		// inserts (their key-share lock does not conflict), which count
		// on today's totals, never on the days before cut's.
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM memory_banks WHERE account_id = $1 AND id = $2`+r.db.LockFor("NO KEY UPDATE"), accountID, bankID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `DELETE FROM memory_entries WHERE account_id = $1 AND bank_id = $2 AND created_at < $3
			RETURNING created_at, tokens, summary, speaker, tags, partition_key, content_id, deleted_at IS NULL`, accountID, bankID, cut)
		if err != nil {
			return err
		}
		d := newStatDelta()
		if _, err := countOut(rows, d, bankID, nil, &contents); err != nil {
			return err
		}
		// Whole days are dropped; the rows of cut's day are changed.
		for k := range d.tokens {
			if k.day < cutDay {
				delete(d.tokens, k)
			}
		}
		for k := range d.keys {
			if k.day < cutDay {
				delete(d.keys, k)
			}
		}
		for k := range d.labels {
			if k.day < cutDay {
				delete(d.labels, k)
			}
		}
		for _, table := range []string{"memory_stat_tokens", "memory_stat_keys", "memory_stat_labels"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE bank_id = $1 AND day < $2`, bankID, cutDay); err != nil {
				return err
			}
		}
		return d.apply(ctx, tx)
	})
	return contents, err
}

// MemoryBankAgents lists the live agents of the account whose current
// definition names the bank, by name (the agents area's table, read
// through agentrow).
func (r repo) MemoryBankAgents(ctx context.Context, accountID, bankID string) ([][2]string, error) {
	return agentrow.LiveWithDefinitionContaining(ctx, r.db.R, accountID, bankID)
}
