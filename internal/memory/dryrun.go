package memory

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

// DryRun is a test-compaction request: a prompt and what to compact
// (sample entries, a direction to generate some, or the bank's own).
type DryRun struct {
	Prompt     *string
	Samples    []string
	Direction  *string
	EntryCount int
	BankType   string
}

// DryRunResult is what a compaction would do, written nowhere.
type DryRunResult struct {
	Original, Surviving []string
	Summary             *string
	Generated           bool
	Verdict             string
	Score               int
	Reasoning           string
}

// TestCompaction dry-runs a prompt on a bank's entries (or the request's
// samples); nothing is written.
func (s *Service) TestCompaction(ctx context.Context, accountID, id string, r DryRun) (DryRunResult, error) {
	b, err := s.repo.MemoryBank(ctx, accountID, id)
	if err != nil {
		return DryRunResult{}, err
	}
	if r.Prompt == nil || strings.TrimSpace(*r.Prompt) == "" {
		r.Prompt = b.CompactionPrompt
	}
	r.BankType = b.Type
	if len(r.Samples) == 0 && (r.Direction == nil || strings.TrimSpace(*r.Direction) == "") {
		// The bank's own oldest entries, as compaction would see them.
		list, err := s.repo.MemoryEntries(ctx, accountID, id, EntryFilter{Limit: 20})
		if err != nil {
			return DryRunResult{}, err
		}
		for _, e := range list {
			r.Samples = append(r.Samples, entryLine(e))
		}
		if len(r.Samples) == 0 {
			return DryRunResult{}, invalid("sample_entries", "the bank has no entries yet: send sample_entries or generate_direction")
		}
	}
	return s.dryRun(ctx, accountID, r)
}

// TestCompactionStandalone dry-runs a prompt with no bank.
func (s *Service) TestCompactionStandalone(ctx context.Context, accountID string, r DryRun) (DryRunResult, error) {
	if r.Prompt == nil || strings.TrimSpace(*r.Prompt) == "" {
		return DryRunResult{}, invalid("compaction_prompt", "a compaction prompt is required")
	}
	if r.BankType == "" {
		r.BankType = TypeConversation
	}
	if r.BankType != TypeConversation && r.BankType != TypeGeneral {
		return DryRunResult{}, invalid("bank_type", "bank_type is conversation or general")
	}
	if len(r.Samples) == 0 && (r.Direction == nil || strings.TrimSpace(*r.Direction) == "") {
		return DryRunResult{}, invalid("sample_entries", "send sample_entries or generate_direction")
	}
	return s.dryRun(ctx, accountID, r)
}

var reBullet = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s*`)

func (s *Service) dryRun(ctx context.Context, accountID string, r DryRun) (DryRunResult, error) {
	prompt := DefaultCompactionPrompt
	if r.Prompt != nil && strings.TrimSpace(*r.Prompt) != "" {
		prompt = *r.Prompt
	}
	if len(prompt) > MaxPromptBytes {
		return DryRunResult{}, invalid("compaction_prompt", fmt.Sprintf("at most %d bytes", MaxPromptBytes))
	}
	meta := llm.CallMeta{AccountID: accountID, Purpose: "compaction_test"}
	out := DryRunResult{}
	entries := r.Samples
	for _, e := range entries {
		if len(e) > MaxEntryBytes {
			return out, invalid("sample_entries", fmt.Sprintf("an entry is at most %d bytes", MaxEntryBytes))
		}
	}
	if len(entries) == 0 {
		n := r.EntryCount
		if n < 2 || n > 20 {
			n = 5
		}
		gen, err := s.generate(ctx, meta, *r.Direction, r.BankType, n)
		if err != nil {
			return out, err
		}
		entries, out.Generated = gen, true
	}
	// As a max_turns compaction would: the oldest entries become one
	// summary, the newest half survive.
	keep := len(entries) / 2
	replaced := entries[:len(entries)-keep]
	out.Original, out.Surviving = entries, append([]string{}, entries[len(entries)-keep:]...)
	sum, err := s.Summarize(ctx, meta, prompt, replaced)
	if err != nil {
		return out, err
	}
	sum = clip(sum, MaxSummaryBytes)
	out.Summary = &sum
	out.Score, out.Verdict, out.Reasoning = judge(replaced, sum)
	return out, nil
}

// generate asks the model for sample entries following direction.
func (s *Service) generate(ctx context.Context, meta llm.CallMeta, direction, bankType string, n int) ([]string, error) {
	style := "chat turns, each starting with user: or assistant:"
	if bankType == TypeGeneral {
		style = "short standalone facts"
	}
	req := llm.ChatRequest{Model: s.chatModel(), MaxTokens: 1500, Meta: meta, Timeout: 2 * time.Minute,
		Messages: []llm.Message{llm.System(fmt.Sprintf("Write %d memory entries as %s, one per line.", n, style)), llm.User(direction)}}
	resp, err := s.model.Chat(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("generate sample entries: %w", err)
	}
	var out []string
	for _, line := range strings.Split(resp.Text(), "\n") {
		line = strings.TrimSpace(reBullet.ReplaceAllString(line, ""))
		if line != "" {
			out = append(out, clip(line, MaxEntryBytes))
		}
	}
	if len(out) < n { // one paragraph: a sentence per entry
		var sent []string
		for _, p := range out {
			sent = append(sent, splitSentences(p)...)
		}
		if len(sent) > len(out) {
			out = sent
		}
	}
	if len(out) == 0 {
		return nil, invalid("generate_direction", "the model generated no entries from this direction")
	}
	return out[:min(n, len(out))], nil
}

var reSentence = regexp.MustCompile(`[^.!?]+[.!?]*`)

func splitSentences(p string) []string {
	var out []string
	for _, s := range reSentence.FindAllString(p, -1) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var reSalient = regexp.MustCompile(`\b(?:\d[\d.,:/-]*|[A-Z][a-zA-Z]{2,})\b`)

// judge scores a summary on the facts it keeps: the numbers and names of
// the entries it replaces (1 to 5; pass at 3). It is a rule, not a model,
// so the same summary always gets the same verdict.
func judge(entries []string, summary string) (int, string, string) {
	facts := map[string]bool{}
	for _, e := range entries {
		for _, w := range reSalient.FindAllString(e, -1) {
			if !commonCapital[strings.ToLower(w)] {
				facts[w] = true
			}
		}
	}
	if len(facts) == 0 {
		if strings.TrimSpace(summary) == "" {
			return 1, "fail", "The summary is empty."
		}
		return 4, "pass", "The entries name no figures or names to check; the summary is not empty."
	}
	var kept, lost []string
	for f := range facts {
		if strings.Contains(summary, f) {
			kept = append(kept, f)
		} else {
			lost = append(lost, f)
		}
	}
	ratio := float64(len(kept)) / float64(len(facts))
	score := 1 + int(ratio*4+0.5)
	verdict := "fail"
	if score >= 3 {
		verdict = "pass"
	}
	reason := fmt.Sprintf("The summary keeps %d of the %d names and figures in the compacted entries.", len(kept), len(facts))
	if len(lost) > 0 {
		sort.Strings(lost)
		reason += " Missing: " + strings.Join(lost[:min(10, len(lost))], ", ") + "."
	}
	return score, verdict, reason
}

// Capitalised words that start sentences rather than name things.
var commonCapital = map[string]bool{"the": true, "and": true, "user": true, "assistant": true, "she": true, "he": true, "they": true,
	"this": true, "that": true, "what": true, "when": true, "can": true, "could": true, "would": true, "please": true, "thanks": true,
	"thank": true, "yes": true, "hello": true, "our": true, "your": true, "you": true, "for": true, "but": true, "also": true, "sure": true}
