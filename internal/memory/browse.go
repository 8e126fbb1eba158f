package memory

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/fault"
)

// Browsing a bank's entries (GET /memory_banks/{id}/entries and /keys, an
// extension): what the console and the CLI show of a bank, a page at a
// time. Only the account's own live banks are browsed; any other is
// store.ErrNotFound.

// Bounds of a browse request.
const (
	MaxBrowsePage   = 100 // entries or keys per page
	MaxBrowseSearch = 200 // bytes of a search text
)

// EntriesQuery selects a page of a bank's entries, newest first.
type EntriesQuery struct {
	Key    *string // one conversation_key (group_key) only
	Search string  // a substring of the content, case-insensitive
	After  string  // the last entry id of the previous page
	Limit  int
}

// Entries returns a page of a bank's live entries, newest first, and the
// cursor of the next page ("" on the last). A search page reads
// SearchWindow entries at most, so it may hold fewer matches than
// Limit, even none, and still have a next page.
func (s *Service) Entries(ctx context.Context, accountID, bankID string, q EntriesQuery) ([]Entry, string, error) {
	if _, err := s.repo.MemoryBank(ctx, accountID, bankID); err != nil {
		return nil, "", err
	}
	if q.Limit < 1 || q.Limit > MaxBrowsePage {
		return nil, "", queryInvalid("limit", fmt.Sprintf("a page is 1 to %d entries", MaxBrowsePage))
	}
	if len(q.Search) > MaxBrowseSearch || !utf8.ValidString(q.Search) {
		return nil, "", queryInvalid("q", fmt.Sprintf("a search is at most %d bytes of UTF-8", MaxBrowseSearch))
	}
	if q.Key != nil && len(*q.Key) > MaxPartitionKey {
		return nil, "", queryInvalid("key", fmt.Sprintf("a key is at most %d bytes", MaxPartitionKey))
	}
	list, next, err := s.repo.BrowseMemoryEntries(ctx, accountID, bankID, q)
	if errors.Is(err, ErrBadCursor) {
		return nil, "", queryInvalid("cursor", err.Error())
	}
	return list, next, err
}

// queryInvalid is a browse parameter's refusal: browsing reads the query
// string, so the problem is located there rather than in a body.
func queryInvalid(field, msg string) error {
	return fault.InvalidAt([]any{"query", field}, msg, "value_error")
}

// KeysQuery selects a page of a bank's keys in byte order.
type KeysQuery struct {
	Prefix string
	After  *string // the last key of the previous page ("" is a key)
	Limit  int
}

// Keys returns a page of the keys of a bank's live entries, in byte
// order, each with its entry count and last activity, and whether more
// follow.
func (s *Service) Keys(ctx context.Context, accountID, bankID string, q KeysQuery) ([]Key, bool, error) {
	if _, err := s.repo.MemoryBank(ctx, accountID, bankID); err != nil {
		return nil, false, err
	}
	if q.Limit < 1 || q.Limit > MaxBrowsePage {
		return nil, false, queryInvalid("limit", fmt.Sprintf("a page is 1 to %d keys", MaxBrowsePage))
	}
	if len(q.Prefix) > MaxPartitionKey || !utf8.ValidString(q.Prefix) {
		return nil, false, queryInvalid("prefix", fmt.Sprintf("a prefix is at most %d bytes of UTF-8", MaxPartitionKey))
	}
	return s.repo.MemoryKeys(ctx, bankID, q)
}
