package memory

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Browsing a bank (GET /memory_banks/{id}/entries and /keys): its live
// entries newest first, a page at a time by cursor, and its keys in key
// order with what each holds. Every query is one index range read
// (migration 00192), so a page costs the same however large the bank.
// The caller has checked that the bank is the account's.

// keyCol is partition_key compared in byte order on both dialects: the
// PostgreSQL index is built COLLATE "C" (store.SQLite compares bytes anyway), so
// key order, prefix ranges and key cursors agree across dialects and the
// index serves them.
func (r repo) keyCol() string {
	if r.db.Dialect == store.Postgres {
		return `partition_key COLLATE "C"`
	}
	return `partition_key`
}

// ErrBadCursor means a cursor names no entry of the bank.
var ErrBadCursor = errors.New("the cursor names no entry of this memory bank")

// LikePattern is the LIKE pattern matching s anywhere, with LIKE's own
// wildcards in s taken literally (ESCAPE '\').
func LikePattern(s string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
}

// BrowseMemoryEntries returns up to q.Limit live entries of a bank, newest
// first, and the cursor of the next page ("" on the last).
func (r repo) BrowseMemoryEntries(ctx context.Context, accountID, bankID string, q EntriesQuery) ([]Entry, string, error) {
	var (
		at    time.Time
		after = q.After != ""
	)
	if after {
		// The cursor's entry may have been replaced by a summary since
		// (soft-deleted): its time still places the next page.
		err := r.db.R.QueryRowContext(ctx, `SELECT created_at FROM memory_entries WHERE bank_id = $1 AND id = $2 AND account_id = $3`,
			bankID, q.After, accountID).Scan(&at)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, "", ErrBadCursor
		}
		if err != nil {
			return nil, "", err
		}
	}
	// filter is the page's condition and its arguments; withAccount adds
	// the account (which makes the database read each row), for the
	// queries that read the entries themselves.
	filter := func(withAccount bool) (string, []any) {
		where, args := `bank_id = $1 AND deleted_at IS NULL`, []any{bankID}
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		if withAccount {
			where += ` AND account_id = ` + arg(accountID)
		}
		if q.Key != nil {
			where += ` AND ` + r.keyCol() + ` = ` + arg(*q.Key)
		}
		if after {
			where += ` AND (created_at, id) < (` + arg(at) + `, ` + arg(q.After) + `)`
		}
		return where, args
	}
	const order = ` ORDER BY created_at DESC, id DESC`
	where, args := filter(true)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.Search == "" {
		limit := arg(q.Limit + 1)
		rows, err := r.db.R.QueryContext(ctx, `SELECT `+memoryEntryColumns+` FROM memory_entries WHERE `+where+order+` LIMIT `+limit, args...)
		if err != nil {
			return nil, "", err
		}
		list, err := collectMemoryEntries(rows)
		if err != nil {
			return nil, "", err
		}
		if len(list) > q.Limit {
			return list[:q.Limit], list[q.Limit-1].ID, nil
		}
		return list, "", nil
	}

	// A search reads the next SearchWindow entries at most (no index finds
	// a substring): a page holds the matches among them, and when that is
	// fewer than q.Limit while older entries remain, the page ends with
	// the window's last entry as its cursor, so the next page searches on
	// from there. Each page's cost is bounded whatever the bank's size.
	like := `LIKE` // ASCII case-insensitive on store.SQLite
	if r.db.Dialect == store.Postgres {
		like = `ILIKE`
	}
	window := `SELECT ` + memoryEntryColumns + ` FROM memory_entries WHERE ` + where + order + ` LIMIT ` + strconv.Itoa(SearchWindow)
	pattern, limit := arg(LikePattern(q.Search)), arg(q.Limit+1)
	rows, err := r.db.R.QueryContext(ctx, `SELECT * FROM (`+window+`) AS w WHERE content `+like+` `+pattern+` ESCAPE '\'`+order+` LIMIT `+limit, args...)
	if err != nil {
		return nil, "", err
	}
	list, err := collectMemoryEntries(rows)
	if err != nil {
		return nil, "", err
	}
	if len(list) > q.Limit {
		return list[:q.Limit], list[q.Limit-1].ID, nil
	}
	// Fewer matches than a page: the window's last entry, if the window
	// was full, is where the next page searches on from. Its id alone is
	// read from the time index (the bank is the account's: the caller
	// checked, and the cursor is checked again when used).
	where, args = filter(false)
	var last string
	err = r.db.R.QueryRowContext(ctx, `SELECT id FROM memory_entries WHERE `+where+order+` LIMIT 1 OFFSET `+strconv.Itoa(SearchWindow-1), args...).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return list, "", nil
	}
	return list, last, err
}

// SearchWindow is how many entries one page of a search reads at most.
const SearchWindow = 10_000

// Key is one key of a bank with what it holds.
type Key struct {
	Key          string
	Entries      int
	LastActivity time.Time // the newest entry's time
}

// MemoryKeys returns up to q.Limit keys of a bank's live entries in byte
// order, each with its entry count and newest entry's time, and whether
// more follow. It reads the key index alone, and only the keys of the page.
func (r repo) MemoryKeys(ctx context.Context, bankID string, q KeysQuery) ([]Key, bool, error) {
	col := r.keyCol()
	where, args := `bank_id = $1 AND deleted_at IS NULL`, []any{bankID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.Prefix != "" {
		// [prefix, prefix + U+10FFFF): in byte order, every valid UTF-8
		// key starting with prefix and nothing else (keys are valid UTF-8).
		where += ` AND ` + col + ` >= ` + arg(q.Prefix) + ` AND ` + col + ` < ` + arg(q.Prefix+"\U0010FFFF")
	}
	if q.After != nil {
		where += ` AND ` + col + ` > ` + arg(*q.After)
	}
	limit := arg(q.Limit + 1)
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+col+`, COUNT(*), MAX(created_at) FROM memory_entries WHERE `+where+`
		GROUP BY `+col+` ORDER BY `+col+` LIMIT `+limit, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []Key{}
	for rows.Next() {
		var (
			k    Key
			last any
		)
		if err := rows.Scan(&k.Key, &k.Entries, &last); err != nil {
			return nil, false, err
		}
		k.LastActivity = anyTime(last)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > q.Limit
	return out[:min(len(out), q.Limit)], more, nil
}
