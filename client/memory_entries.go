package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Browsing a memory bank (Agentry extensions): its entries newest first,
// by key and text, and its keys with their counts, a page at a time by
// cursor.

// MemoryEntry is one entry of a bank: a conversation turn, a general
// entry, or a summary compaction wrote in place of older ones.
type MemoryEntry struct {
	ID        string         `json:"id"`
	Key       string         `json:"key"` // conversation_key or group_key; "" when none
	Speaker   *string        `json:"speaker"`
	Content   string         `json:"content"`
	Metadata  map[string]any `json:"metadata"`
	Tags      []string       `json:"tags"`
	Tokens    int            `json:"tokens"`
	Summary   bool           `json:"summary"`
	RunID     *string        `json:"run_id"`
	CreatedAt string         `json:"created_at"`
}

// MemoryEntriesPage is one page of MemoryBankEntries; NextCursor is nil
// on the last.
type MemoryEntriesPage struct {
	Data       []MemoryEntry `json:"data"`
	NextCursor *string       `json:"next_cursor"`
}

// MemoryEntriesOptions filter and page GET /memory_banks/{id}/entries.
type MemoryEntriesOptions struct {
	// Key keeps one key's entries; a pointer to "" keeps those written
	// without a key; nil keeps every key's.
	Key    *string
	Search string // a substring of the content, case-insensitive (≤ 200 bytes)
	Cursor string // a page's NextCursor, for the page after it
	Limit  int    // 1–100; the server's 50 when zero
}

// MemoryBankEntries returns one page of a bank's entries, newest first.
func (c *Client) MemoryBankEntries(ctx context.Context, bankID string, o MemoryEntriesOptions, opts ...CallOption) (*MemoryEntriesPage, error) {
	q := url.Values{}
	if o.Key != nil {
		q.Set("key", *o.Key)
	}
	setIf(q, "q", o.Search)
	var out MemoryEntriesPage
	return &out, c.Do(ctx, http.MethodGet, browsePath(pathf("/memory_banks/%s/entries", bankID), q, o.Cursor, o.Limit), nil, &out, opts...)
}

// AllMemoryBankEntries iterates over a bank's entries (from o.Cursor on),
// fetching pages as it goes.
func (c *Client) AllMemoryBankEntries(ctx context.Context, bankID string, o MemoryEntriesOptions, opts ...CallOption) iter.Seq2[MemoryEntry, error] {
	return func(yield func(MemoryEntry, error) bool) {
		for {
			p, err := c.MemoryBankEntries(ctx, bankID, o, opts...)
			if err != nil {
				yield(MemoryEntry{}, err)
				return
			}
			for _, e := range p.Data {
				if !yield(e, nil) {
					return
				}
			}
			if p.NextCursor == nil || *p.NextCursor == "" {
				return
			}
			o.Cursor = *p.NextCursor
		}
	}
}

// MemoryKey is one key of a bank: how many live entries it has and when
// the newest was written.
type MemoryKey struct {
	Key          string `json:"key"`
	Entries      int    `json:"entries"`
	LastActivity string `json:"last_activity"`
}

// MemoryKeysPage is one page of MemoryBankKeys; NextCursor is nil on the
// last.
type MemoryKeysPage struct {
	Data       []MemoryKey `json:"data"`
	NextCursor *string     `json:"next_cursor"`
}

// MemoryKeysOptions filter and page GET /memory_banks/{id}/keys.
type MemoryKeysOptions struct {
	Prefix string // only keys starting with it
	Cursor string // a page's NextCursor
	Limit  int    // 1–100; the server's 50 when zero
}

// MemoryBankKeys returns one page of a bank's keys, in byte order.
func (c *Client) MemoryBankKeys(ctx context.Context, bankID string, o MemoryKeysOptions, opts ...CallOption) (*MemoryKeysPage, error) {
	q := url.Values{}
	setIf(q, "prefix", o.Prefix)
	var out MemoryKeysPage
	return &out, c.Do(ctx, http.MethodGet, browsePath(pathf("/memory_banks/%s/keys", bankID), q, o.Cursor, o.Limit), nil, &out, opts...)
}

// browsePath is a browse operation's path with its filters, cursor and
// page size (the server's default when limit is zero).
func browsePath(path string, q url.Values, cursor string, limit int) string {
	setIf(q, "cursor", cursor)
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return path
}
