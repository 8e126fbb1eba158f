package api

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/memory"
)

// Browsing a bank, extensions: GET /memory_banks/{id}/entries (its live
// entries newest first, of one key or all, optionally those containing a
// text) and GET /memory_banks/{id}/keys (its keys in byte order, each with
// its entry count and last activity). Both page by cursor and count no
// total, so a page costs the same at 100,000 entries as at ten. The web
// console's bank page and `agentry memory entries|keys` read them.

const (
	listMemoryEntriesDoc = "A memory bank's live entries (turns, general entries and the summaries compaction wrote), newest first. " +
		"`key` keeps one conversation_key (conversation banks) or group_key (general banks); `key=` (empty) keeps the entries written without one. " +
		"`q` keeps the entries whose content contains it, case-insensitive (at most 200 bytes); a search page reads 10,000 entries at most, " +
		"so it may hold fewer matches than `limit`, even none, and still have a next_cursor to search on further back. " +
		"Pages are walked with a cursor: pass next_cursor back as cursor; it is null on the last page. No total is counted. " +
		"Another account's bank is a 404."
	listMemoryKeysDoc = "The keys of a memory bank's live entries (conversation_key for conversation banks, group_key for general ones; " +
		"\"\" for entries written without one) in byte order, each with its number of entries and its newest entry's time. " +
		"`prefix` keeps the keys starting with it. Pages are walked with a cursor: pass next_cursor back as cursor; it is null on the last page. " +
		"Another account's bank is a 404."
)

// MemoryEntryResponse is one entry of a bank.
type MemoryEntryResponse struct {
	ID        string         `json:"id" format:"uuid"`
	Key       string         `json:"key" doc:"The entry's conversation_key (conversation banks) or group_key (general banks); empty when none was given."`
	Speaker   *string        `json:"speaker" doc:"Who said it (conversation turns), when known."`
	Content   string         `json:"content"`
	Metadata  map[string]any `json:"metadata"`
	Tags      []string       `json:"tags"`
	Tokens    int            `json:"tokens"`
	Summary   bool           `json:"summary" doc:"Written by compaction in place of older entries."`
	RunID     *string        `json:"run_id" doc:"The run whose step wrote it."`
	CreatedAt string         `json:"created_at" format:"date-time"`
}

// MemoryEntriesResponse is a page of GET /memory_banks/{id}/entries.
type MemoryEntriesResponse struct {
	Data       []MemoryEntryResponse `json:"data"`
	NextCursor *string               `json:"next_cursor" doc:"Pass as cursor for the next page; null on the last page."`
}

// MemoryKeyResponse is one key of a bank.
type MemoryKeyResponse struct {
	Key          string `json:"key"`
	Entries      int    `json:"entries" doc:"Live entries with this key."`
	LastActivity string `json:"last_activity" format:"date-time" doc:"When its newest entry was written."`
}

// MemoryKeysResponse is a page of GET /memory_banks/{id}/keys.
type MemoryKeysResponse struct {
	Data       []MemoryKeyResponse `json:"data"`
	NextCursor *string             `json:"next_cursor" doc:"Pass as cursor for the next page; null on the last page."`
}

type listMemoryEntriesInput struct {
	BankID string `path:"memory_bank_id" format:"uuid" doc:"The memory bank's id."`
	Key    string `query:"key" maxLength:"512" required:"false" doc:"Only this key's entries; empty for those without a key."`
	Q      string `query:"q" maxLength:"200" required:"false" doc:"Only entries whose content contains this, case-insensitive."`
	Cursor string `query:"cursor" format:"uuid" required:"false"`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"100"`
	keySet bool   // key was given (key= asks for the entries without a key)
}

// Resolve notes whether key was given at all: an empty key is a key.
func (in *listMemoryEntriesInput) Resolve(ctx huma.Context) []error {
	u := ctx.URL()
	in.keySet = u.Query().Has("key")
	return nil
}

type memoryEntriesOutput struct{ Body MemoryEntriesResponse }

func memoryEntryResponse(e memory.Entry) MemoryEntryResponse {
	return MemoryEntryResponse{ID: e.ID, Key: e.Partition, Speaker: e.Speaker, Content: e.Content, Metadata: e.Metadata, Tags: e.Tags,
		Tokens: e.Tokens, Summary: e.Summary, RunID: e.RunID, CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

func (s *Server) listMemoryEntries(ctx context.Context, in *listMemoryEntriesInput) (*memoryEntriesOutput, error) {
	q := memory.EntriesQuery{Search: in.Q, After: in.Cursor, Limit: in.Limit}
	if in.keySet {
		q.Key = &in.Key
	}
	list, next, err := s.deps.Memory.Entries(ctx, principal(ctx).AccountID, in.BankID, q)
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	out := MemoryEntriesResponse{Data: make([]MemoryEntryResponse, len(list))}
	for i, e := range list {
		out.Data[i] = memoryEntryResponse(e)
	}
	out.NextCursor = optStr(next)
	return &memoryEntriesOutput{Body: out}, nil
}

type listMemoryKeysInput struct {
	BankID string `path:"memory_bank_id" format:"uuid" doc:"The memory bank's id."`
	Prefix string `query:"prefix" maxLength:"512" required:"false" doc:"Only keys starting with this."`
	Cursor string `query:"cursor" maxLength:"700" required:"false" doc:"A page's next_cursor."`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"100"`
}

type memoryKeysOutput struct{ Body MemoryKeysResponse }

// A keys cursor is the page's last key, base64url with a leading "k" so
// that the empty key has a cursor too.
func keyCursor(key string) string { return "k" + base64.RawURLEncoding.EncodeToString([]byte(key)) }

func parseKeyCursor(c string) (string, bool) {
	if len(c) == 0 || c[0] != 'k' {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(c[1:])
	return string(b), err == nil
}

func (s *Server) listMemoryKeys(ctx context.Context, in *listMemoryKeysInput) (*memoryKeysOutput, error) {
	q := memory.KeysQuery{Prefix: in.Prefix, Limit: in.Limit}
	if in.Cursor != "" {
		after, ok := parseKeyCursor(in.Cursor)
		if !ok {
			return nil, fault.InvalidAt([]any{"query", "cursor"}, "the cursor is not a next_cursor of this list", "value_error")
		}
		q.After = &after
	}
	list, more, err := s.deps.Memory.Keys(ctx, principal(ctx).AccountID, in.BankID, q)
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	out := MemoryKeysResponse{Data: make([]MemoryKeyResponse, len(list))}
	for i, k := range list {
		out.Data[i] = MemoryKeyResponse{Key: k.Key, Entries: k.Entries, LastActivity: k.LastActivity.UTC().Format(time.RFC3339Nano)}
	}
	if more && len(list) > 0 {
		c := keyCursor(list[len(list)-1].Key)
		out.NextCursor = &c
	}
	return &memoryKeysOutput{Body: out}, nil
}
