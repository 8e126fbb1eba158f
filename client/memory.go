package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Memory banks: conversation banks (turns per conversation_key) and
// general banks (entries searched semantically), their compaction, and the
// memory-bank assistant.

// MemoryBank is a memory bank.
type MemoryBank struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	Description        *string `json:"description"`
	Type               string  `json:"type"`
	Mode               string  `json:"mode"`
	EmbeddingModel     *string `json:"embedding_model"`
	Dimensions         *int    `json:"dimensions"`
	ChunkSize          *int    `json:"chunk_size"`
	ChunkOverlap       *int    `json:"chunk_overlap"`
	RetentionDays      *int    `json:"retention_days"`
	MaxTurns           *int    `json:"max_turns"`
	MaxSizeTokens      *int    `json:"max_size_tokens"`
	MaxAgeDays         *int    `json:"max_age_days"`
	CompactionPrompt   *string `json:"compaction_prompt"`
	SourceConnectionID *string `json:"source_connection_id"`
	CreatedAt          string  `json:"created_at"`
	UpdatedAt          string  `json:"updated_at"`
}

// CreateMemoryBankRequest creates a bank. Type is conversation (default)
// or general; Mode fast_and_cheap (default), balanced, slow_and_thorough
// or custom (which takes the embedding and chunking fields).
type CreateMemoryBankRequest struct {
	Name             string  `json:"name"`
	Description      *string `json:"description,omitempty"`
	Type             string  `json:"type,omitempty"`
	Mode             string  `json:"mode,omitempty"`
	EmbeddingModel   *string `json:"embedding_model,omitempty"`
	Dimensions       *int    `json:"dimensions,omitempty"`
	ChunkSize        *int    `json:"chunk_size,omitempty"`
	ChunkOverlap     *int    `json:"chunk_overlap,omitempty"`
	RetentionDays    *int    `json:"retention_days,omitempty"`
	MaxTurns         *int    `json:"max_turns,omitempty"`
	MaxSizeTokens    *int    `json:"max_size_tokens,omitempty"`
	MaxAgeDays       *int    `json:"max_age_days,omitempty"`
	CompactionPrompt *string `json:"compaction_prompt,omitempty"`
}

// UpdateMemoryBankRequest changes the fields set: "" clears a text, 0 a
// number (disables a threshold).
type UpdateMemoryBankRequest struct {
	Name             *string `json:"name,omitempty"`
	Description      *string `json:"description,omitempty"`
	CompactionPrompt *string `json:"compaction_prompt,omitempty"`
	RetentionDays    *int    `json:"retention_days,omitempty"`
	MaxTurns         *int    `json:"max_turns,omitempty"`
	MaxSizeTokens    *int    `json:"max_size_tokens,omitempty"`
	MaxAgeDays       *int    `json:"max_age_days,omitempty"`
}

// MemoryBankListOptions page, sort and filter GET /memory_banks.
type MemoryBankListOptions struct {
	Page, Limit int    // limit 1–100
	Sort        string // created_at (default), updated_at, name
	Order       string // desc (default) or asc
	Type        string // conversation or general; all when empty
}

// CreateMemoryBank creates a bank and provisions its source connection.
func (c *Client) CreateMemoryBank(ctx context.Context, req CreateMemoryBankRequest, opts ...CallOption) (*MemoryBank, error) {
	var out MemoryBank
	return &out, c.Do(ctx, http.MethodPost, "/memory_banks", req, &out, opts...)
}

// ListMemoryBanks returns one page of the account's banks.
func (c *Client) ListMemoryBanks(ctx context.Context, o MemoryBankListOptions, opts ...CallOption) (*Page[MemoryBank], error) {
	p := url.Values{}
	for k, v := range map[string]string{"sort": o.Sort, "order": o.Order, "type": o.Type} {
		if v != "" {
			p.Set(k, v)
		}
	}
	return ListPage[MemoryBank](ctx, c, "/memory_banks", ListQuery{Params: p, Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, 100), Key: "memory_banks"}, opts...)
}

// GetMemoryBank returns a bank.
func (c *Client) GetMemoryBank(ctx context.Context, id string, opts ...CallOption) (*MemoryBank, error) {
	var out MemoryBank
	return &out, c.Do(ctx, http.MethodGet, pathf("/memory_banks/%s", id), nil, &out, opts...)
}

// UpdateMemoryBank changes a bank (never its type or mode).
func (c *Client) UpdateMemoryBank(ctx context.Context, id string, req UpdateMemoryBankRequest, opts ...CallOption) (*MemoryBank, error) {
	var out MemoryBank
	return &out, c.Do(ctx, http.MethodPut, pathf("/memory_banks/%s", id), req, &out, opts...)
}

// DeleteMemoryBank deletes a bank no agent uses, with its entries.
func (c *Client) DeleteMemoryBank(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/memory_banks/%s", id), nil, nil, opts...)
}

// DeleteMemoryBankSource removes every entry of a bank and its source; the
// next write provisions a new source.
func (c *Client) DeleteMemoryBankSource(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/memory_banks/%s/source", id), nil, nil, opts...)
}

// MemoryBankAgent is an agent whose definition uses a bank.
type MemoryBankAgent struct {
	AgentID   string `json:"agent_id"`
	AgentName string `json:"agent_name"`
}

// MemoryBankAgents lists the agents using a bank.
func (c *Client) MemoryBankAgents(ctx context.Context, id string, opts ...CallOption) ([]MemoryBankAgent, error) {
	var out []MemoryBankAgent
	return out, c.Do(ctx, http.MethodGet, pathf("/memory_banks/%s/agents", id), nil, &out, opts...)
}

// MemoryBankTemplates lists ready-made bank settings.
func (c *Client) MemoryBankTemplates(ctx context.Context, opts ...CallOption) ([]map[string]any, error) {
	var out []map[string]any
	return out, c.Do(ctx, http.MethodGet, "/memory_banks/templates", nil, &out, opts...)
}

// MemoryBankStatsOptions choose the period: Days back (default 30), or
// StartDate/EndDate (YYYY-MM-DD).
type MemoryBankStatsOptions struct {
	Days               int
	StartDate, EndDate string
}

// MemoryBankStats sums up a bank's entries (counts and distributions).
func (c *Client) MemoryBankStats(ctx context.Context, id string, o MemoryBankStatsOptions, opts ...CallOption) (map[string]any, error) {
	q := url.Values{}
	if o.Days > 0 {
		q.Set("days", strconv.Itoa(o.Days))
	}
	if o.StartDate != "" {
		q.Set("start_date", o.StartDate)
	}
	if o.EndDate != "" {
		q.Set("end_date", o.EndDate)
	}
	path := pathf("/memory_banks/%s/stats", id)
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out map[string]any
	return out, c.Do(ctx, http.MethodGet, path, nil, &out, opts...)
}

// CompactionScheduled confirms a compaction was queued.
type CompactionScheduled struct {
	MemoryBankID string `json:"memory_bank_id"`
	Status       string `json:"status"`
}

// CompactMemoryBank queues a compaction of the bank now (202).
func (c *Client) CompactMemoryBank(ctx context.Context, id string, opts ...CallOption) (*CompactionScheduled, error) {
	var out CompactionScheduled
	return &out, c.Do(ctx, http.MethodPost, pathf("/memory_banks/%s/compact", id), nil, &out, opts...)
}

// TestCompactionRequest dry-runs a compaction prompt. The standalone form
// needs CompactionPrompt and BankType.
type TestCompactionRequest struct {
	CompactionPrompt  *string  `json:"compaction_prompt,omitempty"`
	BankType          string   `json:"bank_type,omitempty"`
	SampleEntries     []string `json:"sample_entries,omitempty"`
	GenerateDirection *string  `json:"generate_direction,omitempty"`
	EntryCount        int      `json:"entry_count,omitempty"`
}

// CompactionTest is a dry run's result; nothing was written.
type CompactionTest struct {
	OriginalEntries   []string `json:"original_entries"`
	CompactionSummary *string  `json:"compaction_summary"`
	SurvivingEntries  []string `json:"surviving_entries"`
	Generated         bool     `json:"generated"`
	Evaluation        struct {
		Verdict   string `json:"verdict"`
		Score     int    `json:"score"`
		Reasoning string `json:"reasoning"`
	} `json:"evaluation"`
}

// TestMemoryBankCompaction dry-runs a prompt on a bank's entries (or on
// the request's samples).
func (c *Client) TestMemoryBankCompaction(ctx context.Context, id string, req TestCompactionRequest, opts ...CallOption) (*CompactionTest, error) {
	req.BankType = ""
	var out CompactionTest
	return &out, c.Do(ctx, http.MethodPost, pathf("/memory_banks/%s/test-compaction", id), req, &out, opts...)
}

// TestCompaction dry-runs a prompt with no bank.
func (c *Client) TestCompaction(ctx context.Context, req TestCompactionRequest, opts ...CallOption) (*CompactionTest, error) {
	var out CompactionTest
	return &out, c.Do(ctx, http.MethodPost, "/memory_banks/test-compaction", req, &out, opts...)
}

// MemoryAssistantRequest asks the memory-bank assistant for settings.
type MemoryAssistantRequest struct {
	UserInput     string         `json:"user_input"`
	CurrentConfig map[string]any `json:"current_config,omitempty"`
	HistorySince  *string        `json:"history_since,omitempty"`
}

// MemoryAssistantResponse is a proposal.
type MemoryAssistantResponse struct {
	ConversationID string              `json:"conversation_id"`
	Config         map[string]any      `json:"config"`
	Note           string              `json:"note"`
	Success        bool                `json:"success"`
	ExamplePrompts []map[string]string `json:"example_prompts"`
}

// MemoryAssistant proposes bank settings from a description.
func (c *Client) MemoryAssistant(ctx context.Context, req MemoryAssistantRequest, opts ...CallOption) (*MemoryAssistantResponse, error) {
	var out MemoryAssistantResponse
	return &out, c.Do(ctx, http.MethodPost, "/memory_banks/ai-assistant", req, &out, opts...)
}

// MemoryAssistantConversation is the user's latest assistant turns.
type MemoryAssistantConversation struct {
	Turns []struct {
		ConversationID  string         `json:"conversation_id"`
		UserInput       string         `json:"user_input"`
		AINote          *string        `json:"ai_note"`
		ResultingConfig map[string]any `json:"resulting_config"`
		Accepted        *bool          `json:"accepted"`
	} `json:"turns"`
	Total     int     `json:"total"`
	UserInput *string `json:"user_input"`
	AINote    *string `json:"ai_note"`
	Accepted  *bool   `json:"accepted"`
}

// MemoryAssistantHistory returns the latest turns, oldest first (limit
// 1–50, default 5; offset skips the newest).
func (c *Client) MemoryAssistantHistory(ctx context.Context, limit, offset int, opts ...CallOption) (*MemoryAssistantConversation, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	path := "/memory_banks/ai-assistant/last-conversation"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out MemoryAssistantConversation
	return &out, c.Do(ctx, http.MethodGet, path, nil, &out, opts...)
}

// DecideMemoryAssistant accepts (creating or updating the bank) or
// declines a proposal.
func (c *Client) DecideMemoryAssistant(ctx context.Context, conversationID string, accepted bool, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPatch, pathf("/memory_banks/ai-assistant/%s", conversationID), map[string]bool{"accepted": accepted}, nil, opts...)
}
