package memory

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// Templates are ready-made bank settings for common uses; each one's
// settings are a valid create request.
var Templates = []map[string]any{
	{"name": "Support conversation", "description": "Remembers each customer's conversation across sessions.",
		"use_case": "A support chat agent keyed by customer id (conversation_key).",
		"settings": map[string]any{"name": "Support conversations", "type": TypeConversation, "mode": "fast_and_cheap", "retention_days": 90,
			"max_turns": 200, "compaction_prompt": DefaultCompactionPrompt}},
	{"name": "Personal assistant facts", "description": "Accumulates facts and preferences about a user and searches them later.",
		"use_case": "An assistant that writes facts with add_memory and recalls them with search_memory.",
		"settings": map[string]any{"name": "User facts", "type": TypeGeneral, "mode": "balanced", "retention_days": 365,
			"max_size_tokens": 50000, "compaction_prompt": "Merge these facts into a short list; keep every name, number, date and preference exactly."}},
	{"name": "Research notes", "description": "Findings collected across runs, searched with high recall.",
		"use_case": "Agents that gather findings over many runs and search them semantically.",
		"settings": map[string]any{"name": "Research notes", "type": TypeGeneral, "mode": "slow_and_thorough", "retention_days": 180,
			"max_age_days": 90}},
	{"name": "Short-lived chat session", "description": "Keeps a chat's recent turns for a week.",
		"use_case": "Chat agents that only need the current session's context.",
		"settings": map[string]any{"name": "Chat sessions", "type": TypeConversation, "mode": "fast_and_cheap", "retention_days": 7,
			"max_turns": 50}},
}

// ExamplePrompts show what the assistant understands.
var ExamplePrompts = []map[string]string{
	{"title": "Support chat", "prompt": "A support chat agent that remembers each customer for 90 days, compacting after 100 turns."},
	{"title": "Facts", "prompt": "Store facts about each user's preferences and search them accurately."},
	{"title": "Refine", "prompt": "Keep it for 30 days and cap it at 20000 tokens."},
}

// Proposal is the assistant's answer to one turn.
type Proposal struct {
	Turn   AssistantTurn
	Note   string
	Config map[string]any
}

var (
	reDays   = regexp.MustCompile(`(?i)\b(\d{1,5})\s*(day|week|month|year)s?\b`)
	reTurns  = regexp.MustCompile(`(?i)\b(\d{1,7})\s*(turns?|messages?|exchanges?)\b`)
	reTokens = regexp.MustCompile(`(?i)\b(\d{1,9})\s*(k)?\s*tokens?\b`)
	reWord   = regexp.MustCompile(`[A-Za-z][A-Za-z'-]*`)
)

func has(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// MaxAssistantInput bounds a user_input.
const MaxAssistantInput = 4000

// Propose reads a description (and the configuration to refine) and
// proposes bank settings by rule, so the same words always give the same
// proposal with or without a model provider; the turn is stored.
func (s *Service) Propose(ctx context.Context, accountID, userID, input string, current map[string]any, since *time.Time) (Proposal, error) {
	if strings.TrimSpace(input) == "" || len(input) > MaxAssistantInput {
		// A 400 here, not the 422 of a bank's field: the contract's status
		// for this operation.
		msg := fmt.Sprintf("user_input is 1 to %d characters", MaxAssistantInput)
		return Proposal{}, &fault.BadRequest{Msg: msg, Err: invalid("user_input", msg)}
	}
	if current == nil && since != nil {
		// A refinement: start from this session's last proposal.
		turns, _, err := s.repo.MemoryAssistantTurns(ctx, accountID, userID, *since, 0, 20)
		if err != nil {
			return Proposal{}, err
		}
		for _, t := range turns {
			if t.Config != nil {
				current = t.Config
				break
			}
		}
	}
	cfg, notes := proposeConfig(input, current)
	note := fmt.Sprintf("Proposed a %s memory bank %q in %s mode", cfg["type"], cfg["name"], cfg["mode"])
	if len(notes) > 0 {
		note += ": " + strings.Join(notes, "; ")
	}
	note += ". Accept to create it" + map[bool]string{true: ".", false: " (or update the bank being refined)."}[cfg["id"] == nil]
	t, err := s.repo.AddMemoryAssistantTurn(ctx, AssistantTurn{AccountID: accountID, UserID: userID, UserInput: input, AINote: &note, Config: cfg})
	if err != nil {
		return Proposal{}, err
	}
	return Proposal{Turn: t, Note: note, Config: cfg}, nil
}

// proposeConfig applies the rules to a description: what the words say
// changes current (a fresh proposal starts from defaults). It is pure, so
// the same input always gives the same configuration.
func proposeConfig(input string, current map[string]any) (map[string]any, []string) {
	cfg := map[string]any{}
	fresh := current == nil
	// Only well-typed values of the configuration being refined carry
	// over; anything else is proposed afresh.
	for _, k := range []string{"name", "description", "compaction_prompt", "id"} {
		if v, ok := current[k].(string); ok && len(v) <= MaxPromptBytes {
			cfg[k] = v
		}
	}
	if v, ok := current["type"].(string); ok && (v == TypeConversation || v == TypeGeneral) {
		cfg["type"] = v
	}
	if v, ok := current["mode"].(string); ok && modes[v] != (struct{ dims, size, overlap int }{}) {
		cfg["mode"] = v
	}
	for _, k := range []string{"retention_days", "max_turns", "max_size_tokens", "max_age_days"} {
		if v, ok := current[k].(float64); ok && v >= 1 && v <= 1_000_000_000 && v == float64(int(v)) {
			cfg[k] = int(v)
		}
	}
	lower := strings.ToLower(input)
	var notes []string
	switch {
	case has(lower, "fact", "knowledge", "note", "preference", "profile", "search", "recall", "general"):
		cfg["type"] = TypeGeneral
	case has(lower, "chat", "conversation", "dialog", "support", "turn", "session", "message"):
		cfg["type"] = TypeConversation
	}
	if _, ok := cfg["type"]; !ok {
		cfg["type"] = TypeConversation
	}
	switch {
	case has(lower, "accura", "thorough", "precise", "best quality", "high quality", "high recall"):
		cfg["mode"] = "slow_and_thorough"
	case has(lower, "balanced", "medium"):
		cfg["mode"] = "balanced"
	case has(lower, "cheap", "fast", "low cost", "inexpensive", "quick"):
		cfg["mode"] = "fast_and_cheap"
	}
	if _, ok := cfg["mode"]; !ok {
		cfg["mode"] = map[string]string{TypeConversation: "fast_and_cheap", TypeGeneral: "balanced"}[cfg["type"].(string)]
	}
	if m := reDays.FindStringSubmatch(input); m != nil && !has(lower, "older than", "after "+m[1]) {
		n, _ := strconv.Atoi(m[1])
		n *= map[string]int{"day": 1, "week": 7, "month": 30, "year": 365}[strings.ToLower(m[2])]
		if n > 0 && n <= 36500 {
			cfg["retention_days"] = n
			notes = append(notes, fmt.Sprintf("entries are kept %d days", n))
		}
	}
	if m := reDays.FindStringSubmatch(input); m != nil && has(lower, "older than", "compact after "+m[1], "summari") && has(lower, "day", "week", "month") {
		n, _ := strconv.Atoi(m[1])
		n *= map[string]int{"day": 1, "week": 7, "month": 30, "year": 365}[strings.ToLower(m[2])]
		if n > 0 {
			cfg["max_age_days"] = n
		}
	}
	if m := reTurns.FindStringSubmatch(input); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n > 0 {
			cfg["max_turns"] = n
			notes = append(notes, fmt.Sprintf("a conversation is compacted past %d turns", n))
		}
	}
	if m := reTokens.FindStringSubmatch(input); m != nil {
		n, _ := strconv.Atoi(m[1])
		if m[2] != "" {
			n *= 1000
		}
		if n > 0 {
			cfg["max_size_tokens"] = n
			notes = append(notes, fmt.Sprintf("a partition is compacted past %d tokens", n))
		}
	}
	if fresh {
		if _, ok := cfg["name"]; !ok {
			cfg["name"] = nameFrom(input, cfg["type"].(string))
		}
		d := strings.TrimSpace(input)
		if len(d) > 1000 {
			d = clip(d, 1000)
		}
		cfg["description"] = d
		if cfg["type"] == TypeConversation {
			if _, ok := cfg["max_turns"]; !ok {
				cfg["max_turns"] = 100
			}
		} else if _, ok := cfg["max_size_tokens"]; !ok {
			cfg["max_size_tokens"] = 50000
		}
		if _, ok := cfg["retention_days"]; !ok {
			cfg["retention_days"] = 30
		}
	}
	if _, ok := cfg["compaction_prompt"]; !ok {
		if cfg["type"] == TypeGeneral {
			cfg["compaction_prompt"] = "Merge these facts into a short summary; keep every name, number, date and preference exactly as stated."
		} else {
			cfg["compaction_prompt"] = DefaultCompactionPrompt
		}
	}
	return cfg, notes
}

var nameStop = map[string]bool{"a": true, "an": true, "the": true, "that": true, "which": true, "for": true, "of": true, "to": true, "and": true,
	"with": true, "i": true, "we": true, "want": true, "need": true, "memory": true, "bank": true, "remembers": true, "remember": true,
	"store": true, "stores": true, "keep": true, "keeps": true, "my": true, "our": true, "each": true, "every": true, "agent": true}

func nameFrom(input, bankType string) string {
	var words []string
	for _, w := range reWord.FindAllString(input, -1) {
		lw := strings.ToLower(w)
		if nameStop[lw] || len(lw) < 3 {
			continue
		}
		words = append(words, strings.ToUpper(lw[:1])+lw[1:])
		if len(words) == 3 {
			break
		}
	}
	if len(words) == 0 {
		return map[string]string{TypeConversation: "Conversation memory", TypeGeneral: "General memory"}[bankType]
	}
	return strings.Join(words, " ") + " memory"
}

// Decide accepts or declines a turn's proposal. Accepting creates the
// proposed bank (or updates the one the proposal refined, when it names
// an id) and returns it.
func (s *Service) Decide(ctx context.Context, accountID, userID, id string, accepted bool) (*MemoryBank, error) {
	t, err := s.repo.AssistantTurn(ctx, accountID, userID, id)
	if err != nil {
		return nil, err
	}
	if !accepted {
		err := s.repo.DeclineMemoryAssistantTurn(ctx, accountID, userID, id)
		if errors.Is(err, store.ErrConflict) {
			return nil, invalid("accepted", "this proposal was accepted already: the memory bank it made stands; delete the bank to undo it")
		}
		return nil, err
	}
	if t.Config == nil {
		return nil, invalid("accepted", "this turn proposed no configuration")
	}
	if t.MemoryBankID != nil {
		return s.acceptedBank(ctx, accountID, *t.MemoryBankID)
	}
	// Claim the turn first, so two accepts of it never both apply it.
	if err := s.repo.ClaimMemoryAssistantTurn(ctx, accountID, userID, id); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		if t, err = s.repo.AssistantTurn(ctx, accountID, userID, id); err == nil && t.MemoryBankID != nil {
			return s.acceptedBank(ctx, accountID, *t.MemoryBankID)
		}
		return nil, ErrBeingAccepted
	}
	in := ConfigInput(t.Config)
	var b MemoryBank
	if bid, _ := t.Config["id"].(string); bid != "" {
		in.Type, in.Mode = nil, nil
		b, err = s.UpdateBank(ctx, accountID, bid, in)
	} else {
		b, err = s.CreateBank(ctx, accountID, in)
	}
	if err != nil {
		_ = s.repo.ReleaseMemoryAssistantTurn(context.WithoutCancel(ctx), accountID, userID, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, invalid("accepted", "the bank this proposal refines no longer exists")
		}
		return nil, err
	}
	return &b, s.repo.AcceptMemoryAssistantTurn(context.WithoutCancel(ctx), accountID, userID, id, b.ID)
}

// ErrBeingAccepted: another request is accepting the same proposal (409).
var ErrBeingAccepted error = &fault.Conflict{Err: errors.New("this proposal is being accepted by another request; read the conversation again in a moment")}

// acceptedBank answers an accept of a proposal accepted before: it is not
// applied twice.
func (s *Service) acceptedBank(ctx context.Context, accountID, bankID string) (*MemoryBank, error) {
	b, err := s.repo.MemoryBank(ctx, accountID, bankID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalid("accepted", "this proposal was accepted already, and the memory bank it made has since been deleted")
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// ConfigInput reads a proposed configuration (as the assistant stores it)
// into bank settings; absent or mistyped keys stay unset.
func ConfigInput(c map[string]any) BankInput {
	str := func(k string) *string {
		if v, ok := c[k].(string); ok {
			return &v
		}
		return nil
	}
	num := func(k string) *int {
		switch v := c[k].(type) {
		case float64:
			n := int(v)
			return &n
		case int:
			return &v
		}
		return nil
	}
	return BankInput{Name: str("name"), Description: str("description"), Type: str("type"), Mode: str("mode"),
		CompactionPrompt: str("compaction_prompt"), RetentionDays: num("retention_days"), MaxTurns: num("max_turns"),
		MaxSizeTokens: num("max_size_tokens"), MaxAgeDays: num("max_age_days")}
}

// Conversation returns the user's latest turns (newest skipped by offset),
// oldest first, and the total.
func (s *Service) Conversation(ctx context.Context, accountID, userID string, offset, limit int) ([]AssistantTurn, int, error) {
	list, total, err := s.repo.MemoryAssistantTurns(ctx, accountID, userID, time.Time{}, offset, limit)
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list, total, err
}
