package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/store"
)

// DefaultCompactionPrompt is used when a bank has no compaction_prompt.
const DefaultCompactionPrompt = "Summarize these memory entries in five sentences for later recall. " +
	"Keep names, preferences, commitments, numbers and dates exactly as stated; leave out greetings and small talk."

// plan says which oldest entries of a partition a compaction replaces:
// the longest prefix any crossed threshold asks for. Entries are in read
// order (summaries first, then oldest first).
func plan(b MemoryBank, entries []Entry, now time.Time) int {
	n := 0
	if b.MaxTurns != nil && *b.MaxTurns > 0 && len(entries) > *b.MaxTurns {
		// Keep the newest half of the allowance; the rest becomes one
		// summary, so a busy partition is not compacted on every write.
		keep := *b.MaxTurns / 2
		n = max(n, len(entries)-keep)
	}
	if b.MaxSizeTokens != nil && *b.MaxSizeTokens > 0 {
		total := 0
		for _, e := range entries {
			total += e.Tokens
		}
		if total > *b.MaxSizeTokens {
			kept, i := total, 0
			for i < len(entries) && kept > *b.MaxSizeTokens/2 {
				kept -= entries[i].Tokens
				i++
			}
			n = max(n, i)
		}
	}
	if b.MaxAgeDays != nil && *b.MaxAgeDays > 0 {
		cut := now.Add(-time.Duration(*b.MaxAgeDays) * 24 * time.Hour)
		i := 0
		for i < len(entries) && (entries[i].Summary || entries[i].CreatedAt.Before(cut)) {
			i++
		}
		// Summaries alone are not old entries.
		old := 0
		for _, e := range entries[:i] {
			if !e.Summary {
				old++
			}
		}
		if old > 0 {
			n = max(n, i)
		}
	}
	n = min(n, len(entries))
	// Replacing one summary with a summary of itself changes nothing.
	if n == 1 && entries[0].Summary {
		return 0
	}
	return n
}

// over reports whether a partition crosses any threshold, from its sums.
func over(b MemoryBank, p Partition, now time.Time) bool {
	if b.MaxTurns != nil && *b.MaxTurns > 0 && p.Entries > *b.MaxTurns {
		return true
	}
	if b.MaxSizeTokens != nil && *b.MaxSizeTokens > 0 && p.Tokens > *b.MaxSizeTokens {
		return true
	}
	if b.MaxAgeDays != nil && *b.MaxAgeDays > 0 && !p.Oldest.IsZero() && p.Oldest.Before(now.Add(-time.Duration(*b.MaxAgeDays)*24*time.Hour)) {
		return true
	}
	return false
}

// Compaction is what one compaction of a partition did.
type Compaction struct {
	Partition string
	Replaced  int
	Summary   *Entry
}

func (s *Service) lock(bankID, partition string) func() {
	m, _ := s.partitionLocks.LoadOrStore(bankID+"\x00"+partition, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// CompactPartition compacts one partition when it crosses a threshold:
// the oldest entries are summarised through the model router and, in one
// transaction, the summary is written and they are soft-deleted. It
// returns what it did (Replaced 0 when nothing was due).
func (s *Service) CompactPartition(ctx context.Context, b MemoryBank, partition string, meta llm.CallMeta) (Compaction, error) {
	out := Compaction{Partition: partition}
	if !b.HasThreshold() {
		return out, nil
	}
	now := time.Now()
	key := partition
	sums, err := s.repo.MemoryPartitions(ctx, b.AccountID, b.ID, &key)
	if err != nil || len(sums) == 0 || !over(b, sums[0], now) {
		return out, err
	}
	unlock := s.lock(b.ID, partition)
	defer unlock()
	entries, err := s.repo.OldestMemoryEntries(ctx, b.AccountID, b.ID, partition, MaxCompactEntries+MaxHistoryTurns)
	if err != nil {
		return out, err
	}
	n := min(plan(b, entries, now), MaxCompactEntries)
	if n == 0 {
		return out, nil
	}
	replaced := entries[:n]
	prompt := DefaultCompactionPrompt
	if b.CompactionPrompt != nil && strings.TrimSpace(*b.CompactionPrompt) != "" {
		prompt = *b.CompactionPrompt
	}
	if meta.AccountID == "" {
		meta = llm.CallMeta{AccountID: b.AccountID, Purpose: "compaction"}
	}
	texts := make([]string, n)
	for i, e := range replaced {
		texts[i] = entryLine(e)
	}
	summary, err := s.Summarize(ctx, meta, prompt, texts)
	if err != nil {
		return out, err
	}
	limit := MaxSummaryBytes
	if b.Type == TypeGeneral {
		limit = MaxGeneralEntryBytes
	}
	summary = clip(summary, limit)
	ids := make([]string, n)
	tokens := llm.EstimateTokens(summary)
	for i, e := range replaced {
		ids[i] = e.ID
	}
	speaker := "summary"
	sum := Entry{Content: summary, Speaker: &speaker, Tokens: tokens,
		Metadata: map[string]any{"compacted_entries": n, "compacted_from": replaced[0].CreatedAt.Format(time.RFC3339Nano),
			"compacted_to": replaced[n-1].CreatedAt.Format(time.RFC3339Nano)},
		CreatedAt: replaced[n-1].CreatedAt}
	stored, err := s.repo.ReplaceMemoryEntries(ctx, b.AccountID, b.ID, partition, ids, sum)
	if errors.Is(err, ErrCompactionConflict) {
		return out, nil // another compaction replaced them first
	}
	if err != nil {
		return out, err
	}
	out.Replaced, out.Summary = n, &stored
	// The replaced entries' passages leave the index; the summary joins it.
	// Search already skips replaced entries, so this may lag safely.
	if b.Type == TypeGeneral {
		for _, e := range replaced {
			if e.ContentID != nil {
				if err := s.knowledge.DeleteContent(context.WithoutCancel(ctx), b.AccountID, *e.ContentID); err != nil && !errors.Is(err, store.ErrNotFound) {
					slog.Warn("compacted memory entry left in the index", "entry", e.ID, "err", err)
				}
			}
		}
		if err := s.index(ctx, b, &stored); err != nil {
			slog.Warn("memory summary not indexed", "bank", b.ID, "err", err)
		}
	}
	return out, nil
}

// entryLine is how an entry reads in a compaction prompt.
func entryLine(e Entry) string {
	t := strings.TrimSpace(e.Content)
	if e.Speaker != nil && *e.Speaker != "" && *e.Speaker != "summary" {
		return *e.Speaker + ": " + t
	}
	return t
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Summarize asks the model router to summarise entries with prompt. The
// entries go in as a document, so the model reads them as material, never
// as instructions.
func (s *Service) Summarize(ctx context.Context, meta llm.CallMeta, prompt string, entries []string) (string, error) {
	if len(entries) == 0 {
		return "", nil
	}
	text := strings.Join(entries, "\n")
	req := llm.ChatRequest{Model: s.chatModel(), MaxTokens: 1024, Meta: meta, Timeout: 2 * time.Minute,
		Messages: []llm.Message{llm.System(prompt),
			llm.User("Summarize the memory entries in the attached document as instructed.",
				llm.DocumentPart("entries.txt", "text/plain", nil, text))}}
	resp, err := s.model.Chat(ctx, req)
	if err != nil {
		return "", fmt.Errorf("compaction summary: %w", err)
	}
	out := strings.TrimSpace(resp.Text())
	if out == "" {
		return "", errors.New("compaction summary: the model returned nothing")
	}
	return out, nil
}

// CompactBank compacts every partition of a bank that crosses a
// threshold, and applies its retention.
func (s *Service) CompactBank(ctx context.Context, b MemoryBank) (int, error) {
	if b.RetentionDays != nil && *b.RetentionDays > 0 {
		cut := time.Now().Add(-time.Duration(*b.RetentionDays) * 24 * time.Hour)
		contents, err := s.repo.ExpireMemoryEntries(ctx, b.AccountID, b.ID, cut)
		if err != nil {
			return 0, err
		}
		for _, id := range contents {
			if err := s.knowledge.DeleteContent(ctx, b.AccountID, id); err != nil && !errors.Is(err, store.ErrNotFound) {
				return 0, err
			}
		}
	}
	if !b.HasThreshold() {
		return 0, nil
	}
	parts, err := s.repo.MemoryPartitions(ctx, b.AccountID, b.ID, nil)
	if err != nil {
		return 0, err
	}
	done := 0
	now := time.Now()
	for _, p := range parts {
		if !over(b, p, now) {
			continue
		}
		c, err := s.CompactPartition(ctx, b, p.Key, llm.CallMeta{AccountID: b.AccountID, Purpose: "compaction"})
		if err != nil {
			return done, err
		}
		if c.Replaced > 0 {
			done++
		}
	}
	return done, nil
}

// Sweep compacts every bank's partitions that cross a threshold and
// applies retention; the hourly job runs it. A bank that fails (an account
// out of credits) does not stop the others.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	banks, err := s.repo.MemoryBanksWithThresholds(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, b := range banks {
		n, err := s.CompactBank(ctx, b)
		total += n
		if err != nil {
			if ctx.Err() != nil {
				return total, ctx.Err()
			}
			slog.Warn("memory sweep", "bank", b.ID, "err", err)
		}
	}
	return total, nil
}
