package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/metafilter"
	"github.com/agentry/agentry/internal/llm"
)

// Write is one entry to store.
type Write struct {
	Partition string
	Speaker   *string
	Content   string
	Metadata  map[string]any
	Tags      []string
	RunID     *string
	// Meta pays for the inline compaction a write may trigger.
	Meta llm.CallMeta
}

// MaxGeneralEntryBytes bounds a general bank's entry: it is indexed as an
// inline text of the bank's source, with its id appended.
const MaxGeneralEntryBytes = knowledge.MaxInlineBytes - 64

func checkWrite(bankType string, w Write) error {
	if strings.TrimSpace(w.Content) == "" {
		return invalid("content", "the entry is empty")
	}
	limit := MaxEntryBytes
	if bankType == TypeGeneral {
		limit = MaxGeneralEntryBytes
	}
	if len(w.Content) > limit {
		return invalid("content", fmt.Sprintf("an entry of a %s bank is at most %d bytes", bankType, limit))
	}
	if !utf8.ValidString(w.Content) {
		return invalid("content", "the entry is not valid UTF-8")
	}
	if len(w.Partition) > MaxPartitionKey {
		return invalid("conversation_key", fmt.Sprintf("a key is at most %d bytes", MaxPartitionKey))
	}
	if w.Speaker != nil && len(*w.Speaker) > MaxSpeakerLen {
		return invalid("speaker", fmt.Sprintf("a speaker is at most %d bytes", MaxSpeakerLen))
	}
	if b, _ := json.Marshal(w.Metadata); len(b) > MaxMetadataBytes {
		return invalid("metadata", fmt.Sprintf("metadata is at most %d bytes of JSON", MaxMetadataBytes))
	}
	return nil
}

// Add stores an entry in a bank: committed before it returns, so a step's
// write is durable before the step completes. A general bank's entry is
// then indexed in the bank's source; a write that crosses a threshold
// compacts the partition before returning.
func (s *Service) Add(ctx context.Context, b MemoryBank, w Write) (Entry, error) {
	if err := checkWrite(b.Type, w); err != nil {
		return Entry{}, err
	}
	e, err := s.repo.AddMemoryEntry(ctx, Entry{AccountID: b.AccountID, BankID: b.ID, Partition: w.Partition, Speaker: w.Speaker,
		Content: w.Content, Metadata: w.Metadata, Tags: w.Tags, Tokens: llm.EstimateTokens(w.Content), RunID: w.RunID})
	if err != nil {
		return e, err
	}
	if b.Type == TypeGeneral {
		if err := s.index(ctx, b, &e); err != nil {
			// The entry is stored (load_memory sees it); search finds it
			// once it is indexed, which the sweep retries.
			slog.Warn("memory entry not indexed", "bank", b.ID, "entry", e.ID, "err", err)
		}
	}
	if b.HasThreshold() {
		if _, err := s.CompactPartition(ctx, b, w.Partition, w.Meta); err != nil {
			slog.Warn("inline memory compaction", "bank", b.ID, "err", err)
		}
	}
	return e, nil
}

// index adds a general bank's entry to the bank's source, with the entry's
// metadata (plus its id and group key) as the content's metadata, so the
// knowledge area's search and metadata filters work on it.
func (s *Service) index(ctx context.Context, b MemoryBank, e *Entry) error {
	src, err := s.sourceOf(ctx, b)
	if err != nil {
		return err
	}
	meta := map[string]any{}
	for k, v := range e.Metadata {
		meta[k] = v
	}
	meta["memory_entry_id"] = e.ID
	meta["group_key"] = e.Partition
	title := "Memory entry " + e.ID
	if e.Summary {
		title = "Memory summary " + e.ID
	}
	// The entry's id ends the indexed text: the knowledge area answers an
	// upload identical to an earlier one with the earlier content, and
	// two entries that say the same thing are still two entries.
	up, err := s.knowledge.UploadText(ctx, b.AccountID, src, e.Content+"\n\n[memory entry "+e.ID+"]", "text/plain", &title, meta)
	if err != nil {
		return err
	}
	id := up.ContentID
	e.ContentID = &id
	return s.repo.SetMemoryEntryContent(ctx, b.AccountID, e.ID, id)
}

// History returns the newest turns of a partition, oldest first: at most
// maxTurns, and (when maxTokens > 0) no more than fit in maxTokens, the
// newest kept first.
func (s *Service) History(ctx context.Context, b MemoryBank, partition string, maxTurns, maxTokens int) ([]Entry, error) {
	if maxTurns <= 0 || maxTurns > MaxHistoryTurns {
		maxTurns = MaxHistoryTurns
	}
	list, err := s.repo.LatestMemoryEntries(ctx, b.AccountID, b.ID, partition, maxTurns)
	if err != nil || maxTokens <= 0 {
		return list, err
	}
	used, from := 0, len(list)
	for i := len(list) - 1; i >= 0; i-- {
		if used+list[i].Tokens > maxTokens {
			break
		}
		used += list[i].Tokens
		from = i
	}
	return list[from:], nil
}

// SearchRequest is a search of a general bank.
type SearchRequest struct {
	Query string
	TopK  int
	// Threshold drops entries scoring below it.
	Threshold *float64
	Filter    *metafilter.Filter
	// Partition, when set, limits the search to one group_key.
	Partition *string
	Meta      llm.CallMeta
}

// Hit is one entry a search found.
type Hit struct {
	Entry Entry
	Score float64
}

// Search runs the knowledge area's hybrid search over the bank's source
// and answers the live entries behind the passages found: an entry
// compaction replaced, or one of another partition when the request
// names one, never comes back.
func (s *Service) Search(ctx context.Context, b MemoryBank, req SearchRequest) ([]Hit, error) {
	if b.Type != TypeGeneral {
		return nil, fmt.Errorf("%w: search works on general banks; load a conversation bank's turns with load_chat_history", ErrBankType)
	}
	if b.SourceID == nil {
		return []Hit{}, nil
	}
	topK := req.TopK
	if topK <= 0 || topK > 100 {
		topK = 5
	}
	// Passages of replaced entries may linger in the index until their
	// contents are deleted: fetch more than asked, then keep live ones.
	hits, err := s.knowledge.SearchSources(ctx, b.AccountID, []string{*b.SourceID}, knowledge.SearchRequest{Query: req.Query,
		TopN: min(topK*4, knowledge.MaxTopN), Threshold: req.Threshold, Filter: req.Filter, Meta: req.Meta})
	var kinv *knowledge.InvalidError
	if errors.As(err, &kinv) {
		return nil, invalid(kinv.Field, kinv.Msg)
	}
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h.ContentID)
	}
	live, err := s.repo.MemoryEntriesByContent(ctx, b.AccountID, b.ID, ids)
	if err != nil {
		return nil, err
	}
	out := []Hit{}
	seen := map[string]bool{}
	for _, h := range hits {
		e, ok := live[h.ContentID]
		if !ok || seen[e.ID] || (req.Partition != nil && e.Partition != *req.Partition) {
			continue
		}
		seen[e.ID] = true
		out = append(out, Hit{Entry: e, Score: h.Score})
		if len(out) == topK {
			break
		}
	}
	return out, nil
}
