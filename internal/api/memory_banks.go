package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/memory"
)

// MemoryBankResponse is a memory bank.
type MemoryBankResponse struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	Description        *string `json:"description" nullable:"true"`
	Type               string  `json:"type"`
	Mode               string  `json:"mode"`
	EmbeddingModel     *string `json:"embedding_model" nullable:"true"`
	Dimensions         *int    `json:"dimensions" nullable:"true"`
	ChunkSize          *int    `json:"chunk_size" nullable:"true"`
	ChunkOverlap       *int    `json:"chunk_overlap" nullable:"true"`
	RetentionDays      *int    `json:"retention_days" nullable:"true"`
	MaxTurns           *int    `json:"max_turns" nullable:"true"`
	MaxSizeTokens      *int    `json:"max_size_tokens" nullable:"true"`
	MaxAgeDays         *int    `json:"max_age_days" nullable:"true"`
	CompactionPrompt   *string `json:"compaction_prompt" nullable:"true"`
	SourceConnectionID *string `json:"source_connection_id" nullable:"true"`
	CreatedAt          string  `json:"created_at"`
	UpdatedAt          string  `json:"updated_at"`
}

func memoryBankResponse(b memory.MemoryBank) MemoryBankResponse {
	return MemoryBankResponse{ID: b.ID, Name: b.Name, Description: b.Description, Type: b.Type, Mode: b.Mode, EmbeddingModel: b.EmbeddingModel,
		Dimensions: b.Dimensions, ChunkSize: b.ChunkSize, ChunkOverlap: b.ChunkOverlap, RetentionDays: b.RetentionDays, MaxTurns: b.MaxTurns,
		MaxSizeTokens: b.MaxSizeTokens, MaxAgeDays: b.MaxAgeDays, CompactionPrompt: b.CompactionPrompt, SourceConnectionID: b.SourceID,
		CreatedAt: modelsTimestamp(b.CreatedAt), UpdatedAt: modelsTimestamp(b.UpdatedAt)}
}

// CreateMemoryBankBody is POST /memory_banks.
type CreateMemoryBankBody struct {
	Name             string  `json:"name" minLength:"1" maxLength:"255" doc:"Memory bank name."`
	Description      *string `json:"description,omitempty" nullable:"true" maxLength:"1000"`
	Type             *string `json:"type,omitempty" enum:"conversation,general" default:"conversation"`
	Mode             *string `json:"mode,omitempty" enum:"fast_and_cheap,balanced,slow_and_thorough,custom" default:"fast_and_cheap"`
	EmbeddingModel   *string `json:"embedding_model,omitempty" nullable:"true" maxLength:"200"`
	Dimensions       *int    `json:"dimensions,omitempty" nullable:"true" minimum:"8" maximum:"4096"`
	ChunkSize        *int    `json:"chunk_size,omitempty" nullable:"true" minimum:"1" maximum:"100000"`
	ChunkOverlap     *int    `json:"chunk_overlap,omitempty" nullable:"true" minimum:"0" maximum:"100000"`
	RetentionDays    *int    `json:"retention_days,omitempty" nullable:"true" minimum:"1" maximum:"36500" default:"30"`
	MaxTurns         *int    `json:"max_turns,omitempty" nullable:"true" minimum:"1" maximum:"1000000"`
	MaxSizeTokens    *int    `json:"max_size_tokens,omitempty" nullable:"true" minimum:"1" maximum:"1000000000"`
	MaxAgeDays       *int    `json:"max_age_days,omitempty" nullable:"true" minimum:"1" maximum:"36500"`
	CompactionPrompt *string `json:"compaction_prompt,omitempty" nullable:"true" maxLength:"8192"`
}

type createMemoryBankInput struct{ Body CreateMemoryBankBody }
type memoryBankOutput struct{ Body MemoryBankResponse }

func (s *Server) createMemoryBank(ctx context.Context, in *createMemoryBankInput) (*memoryBankOutput, error) {
	b := in.Body
	bank, err := s.deps.Memory.CreateBank(ctx, principal(ctx).AccountID, memory.BankInput{Name: &b.Name, Description: b.Description,
		Type: b.Type, Mode: b.Mode, EmbeddingModel: b.EmbeddingModel, Dimensions: b.Dimensions, ChunkSize: b.ChunkSize, ChunkOverlap: b.ChunkOverlap,
		RetentionDays: b.RetentionDays, MaxTurns: b.MaxTurns, MaxSizeTokens: b.MaxSizeTokens, MaxAgeDays: b.MaxAgeDays, CompactionPrompt: b.CompactionPrompt})
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return &memoryBankOutput{Body: memoryBankResponse(bank)}, nil
}

type memoryBankIDInput struct {
	BankID string `path:"memory_bank_id" format:"uuid" doc:"The memory bank's id."`
}

func (s *Server) getMemoryBank(ctx context.Context, in *memoryBankIDInput) (*memoryBankOutput, error) {
	b, err := s.deps.Memory.Bank(ctx, principal(ctx).AccountID, in.BankID)
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return &memoryBankOutput{Body: memoryBankResponse(b)}, nil
}

// UpdateMemoryBankBody is PUT /memory_banks/{id}; omitted fields stay.
type UpdateMemoryBankBody struct {
	Name             *string `json:"name,omitempty" nullable:"true" minLength:"1" maxLength:"255"`
	Description      *string `json:"description,omitempty" nullable:"true" maxLength:"1000" doc:"Empty string clears."`
	CompactionPrompt *string `json:"compaction_prompt,omitempty" nullable:"true" maxLength:"8192" doc:"Empty string clears (the default prompt is used)."`
	RetentionDays    *int    `json:"retention_days,omitempty" nullable:"true" minimum:"0" maximum:"36500" doc:"0 clears (indefinite)."`
	MaxTurns         *int    `json:"max_turns,omitempty" nullable:"true" minimum:"0" maximum:"1000000" doc:"0 disables."`
	MaxSizeTokens    *int    `json:"max_size_tokens,omitempty" nullable:"true" minimum:"0" maximum:"1000000000" doc:"0 disables."`
	MaxAgeDays       *int    `json:"max_age_days,omitempty" nullable:"true" minimum:"0" maximum:"36500" doc:"0 disables."`
}

type updateMemoryBankInput struct {
	BankID string `path:"memory_bank_id" format:"uuid" doc:"The memory bank's id."`
	Body   UpdateMemoryBankBody
}

func (s *Server) updateMemoryBank(ctx context.Context, in *updateMemoryBankInput) (*memoryBankOutput, error) {
	b := in.Body
	bank, err := s.deps.Memory.UpdateBank(ctx, principal(ctx).AccountID, in.BankID, memory.BankInput{Name: b.Name, Description: b.Description,
		CompactionPrompt: b.CompactionPrompt, RetentionDays: b.RetentionDays, MaxTurns: b.MaxTurns, MaxSizeTokens: b.MaxSizeTokens, MaxAgeDays: b.MaxAgeDays})
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return &memoryBankOutput{Body: memoryBankResponse(bank)}, nil
}

func (s *Server) deleteMemoryBank(ctx context.Context, in *memoryBankIDInput) (*struct{}, error) {
	if err := s.deps.Memory.DeleteBank(ctx, principal(ctx).AccountID, in.BankID); err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return nil, nil
}

func (s *Server) deleteMemoryBankSource(ctx context.Context, in *memoryBankIDInput) (*struct{}, error) {
	if err := s.deps.Memory.DeleteSource(ctx, principal(ctx).AccountID, in.BankID); err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return nil, nil
}

type listMemoryBanksInput struct {
	Page  int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number (1-based)."`
	Limit int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page."`
	Sort  string `query:"sort" default:"created_at" enum:"created_at,updated_at,name" doc:"Sort field."`
	Order string `query:"order" default:"desc" enum:"asc,desc" doc:"Sort direction."`
	Type  string `query:"type" enum:"conversation,general," doc:"Filter by bank type."`
}

// MemoryBankListResponse is the list's shape before 2026-07-27.
type MemoryBankListResponse struct {
	MemoryBanks []MemoryBankResponse `json:"memory_banks"`
	Page        int                  `json:"page"`
	Limit       int                  `json:"limit"`
	Total       int                  `json:"total"`
}

type memoryAnyOutput struct{ Body any }

func (s *Server) listMemoryBanks(ctx context.Context, in *listMemoryBanksInput) (*memoryAnyOutput, error) {
	list, total, err := s.deps.Memory.Banks(ctx, principal(ctx).AccountID, in.Type, in.Sort, in.Order != "asc", in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]MemoryBankResponse, 0, len(list))
	for _, b := range list {
		items = append(items, memoryBankResponse(b))
	}
	return &memoryAnyOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), func(items []MemoryBankResponse, p Pagination) any {
		return MemoryBankListResponse{MemoryBanks: items, Page: p.Page, Limit: p.Limit, Total: p.Total}
	})}, nil
}

func (s *Server) listMemoryBankTemplates(ctx context.Context, _ *struct{}) (*memoryAnyOutput, error) {
	items := memory.Templates
	return &memoryAnyOutput{Body: List(ctx, items, PageOf(1, max(len(items), 1), len(items)),
		func(items []map[string]any, _ Pagination) any { return items })}, nil
}

// MemoryBankAgent is an agent using a bank.
type MemoryBankAgent struct {
	AgentID   string `json:"agent_id"`
	AgentName string `json:"agent_name"`
}

func (s *Server) memoryBankAgents(ctx context.Context, in *memoryBankIDInput) (*memoryAnyOutput, error) {
	list, err := s.deps.Memory.AgentsUsing(ctx, principal(ctx).AccountID, in.BankID)
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	items := make([]MemoryBankAgent, len(list))
	for i, a := range list {
		items[i] = MemoryBankAgent{AgentID: a[0], AgentName: a[1]}
	}
	return &memoryAnyOutput{Body: List(ctx, items, PageOf(1, max(len(items), 1), len(items)),
		func(items []MemoryBankAgent, _ Pagination) any { return items })}, nil
}

type memoryStatsInput struct {
	BankID    string `path:"memory_bank_id" format:"uuid" doc:"The memory bank's id."`
	Days      int    `query:"days" default:"30" minimum:"1" maximum:"730" doc:"Days back from now (or from end_date)."`
	StartDate string `query:"start_date" format:"date" doc:"First day (UTC) included; wins over days."`
	EndDate   string `query:"end_date" format:"date" doc:"Last day (UTC) included."`
}

func (s *Server) memoryBankStats(ctx context.Context, in *memoryStatsInput) (*memoryAnyOutput, error) {
	to := time.Now().UTC().Add(time.Second)
	if in.EndDate != "" {
		d, err := time.Parse(time.DateOnly, in.EndDate)
		if err != nil {
			return nil, Invalid([]any{"query", "end_date"}, "end_date is a date (YYYY-MM-DD)", "value_error")
		}
		to = d.AddDate(0, 0, 1)
	}
	from := to.AddDate(0, 0, -in.Days)
	if in.StartDate != "" {
		d, err := time.Parse(time.DateOnly, in.StartDate)
		if err != nil {
			return nil, Invalid([]any{"query", "start_date"}, "start_date is a date (YYYY-MM-DD)", "value_error")
		}
		from = d
	}
	if !from.Before(to) {
		return nil, Invalid([]any{"query", "start_date"}, "start_date is after end_date", "value_error")
	}
	out, err := s.deps.Memory.Stats(ctx, principal(ctx).AccountID, in.BankID, from, to)
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return &memoryAnyOutput{Body: out}, nil
}

// CompactionScheduledResponse answers POST …/compact.
type CompactionScheduledResponse struct {
	MemoryBankID string `json:"memory_bank_id"`
	Status       string `json:"status"`
}

type compactionScheduledOutput struct{ Body CompactionScheduledResponse }

func (s *Server) compactMemoryBank(ctx context.Context, in *memoryBankIDInput) (*compactionScheduledOutput, error) {
	if err := s.deps.Memory.ScheduleCompaction(ctx, principal(ctx).AccountID, in.BankID); err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return &compactionScheduledOutput{Body: CompactionScheduledResponse{MemoryBankID: in.BankID, Status: "scheduled"}}, nil
}

// TestCompactionRequest is POST /memory_banks/{id}/test-compaction.
type TestCompactionRequest struct {
	CompactionPrompt  *string  `json:"compaction_prompt,omitempty" nullable:"true" maxLength:"8192"`
	SampleEntries     []string `json:"sample_entries,omitempty" nullable:"true" minItems:"1" maxItems:"20"`
	GenerateDirection *string  `json:"generate_direction,omitempty" nullable:"true" maxLength:"2000"`
	EntryCount        int      `json:"entry_count,omitempty" default:"5" minimum:"2" maximum:"20"`
}

// StandaloneTestCompactionRequest is POST /memory_banks/test-compaction.
type StandaloneTestCompactionRequest struct {
	CompactionPrompt  string   `json:"compaction_prompt" minLength:"1" maxLength:"8192"`
	BankType          string   `json:"bank_type,omitempty" default:"conversation" enum:"conversation,general"`
	SampleEntries     []string `json:"sample_entries,omitempty" nullable:"true" minItems:"1" maxItems:"20"`
	GenerateDirection *string  `json:"generate_direction,omitempty" nullable:"true" maxLength:"2000"`
	EntryCount        int      `json:"entry_count,omitempty" default:"5" minimum:"2" maximum:"20"`
}

// CompactionEvaluation is the dry run's quality verdict.
type CompactionEvaluation struct {
	Verdict   string `json:"verdict"`
	Score     int    `json:"score"`
	Reasoning string `json:"reasoning"`
}

// CompactionTestResponse is a dry run's result.
type CompactionTestResponse struct {
	OriginalEntries   []string             `json:"original_entries"`
	CompactionSummary *string              `json:"compaction_summary" nullable:"true"`
	SurvivingEntries  []string             `json:"surviving_entries"`
	Evaluation        CompactionEvaluation `json:"evaluation"`
	Generated         bool                 `json:"generated"`
}

type testCompactionInput struct {
	BankID string `path:"memory_bank_id" format:"uuid" doc:"The memory bank's id."`
	Body   TestCompactionRequest
}
type standaloneTestCompactionInput struct {
	Body StandaloneTestCompactionRequest
}
type compactionTestOutput struct{ Body CompactionTestResponse }

func compactionTestResponse(r memory.DryRunResult) *compactionTestOutput {
	out := CompactionTestResponse{OriginalEntries: r.Original, CompactionSummary: r.Summary, SurvivingEntries: r.Surviving, Generated: r.Generated,
		Evaluation: CompactionEvaluation{Verdict: r.Verdict, Score: r.Score, Reasoning: r.Reasoning}}
	if out.OriginalEntries == nil {
		out.OriginalEntries = []string{}
	}
	if out.SurvivingEntries == nil {
		out.SurvivingEntries = []string{}
	}
	return &compactionTestOutput{Body: out}
}

func (s *Server) testMemoryCompaction(ctx context.Context, in *testCompactionInput) (*compactionTestOutput, error) {
	b := in.Body
	r, err := s.deps.Memory.TestCompaction(ctx, principal(ctx).AccountID, in.BankID, memory.DryRun{Prompt: b.CompactionPrompt,
		Samples: b.SampleEntries, Direction: b.GenerateDirection, EntryCount: b.EntryCount})
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return compactionTestResponse(r), nil
}

func (s *Server) testMemoryCompactionStandalone(ctx context.Context, in *standaloneTestCompactionInput) (*compactionTestOutput, error) {
	b := in.Body
	r, err := s.deps.Memory.TestCompactionStandalone(ctx, principal(ctx).AccountID, memory.DryRun{Prompt: &b.CompactionPrompt,
		Samples: b.SampleEntries, Direction: b.GenerateDirection, EntryCount: b.EntryCount, BankType: b.BankType})
	if err != nil {
		return nil, fault.Name(err, "Memory bank")
	}
	return compactionTestResponse(r), nil
}

// The memory-bank assistant.

// MemoryBankAiAssistantRequest asks the assistant for a configuration.
type MemoryBankAiAssistantRequest struct {
	UserInput     string         `json:"user_input" minLength:"1" maxLength:"4000" doc:"Natural-language description of the memory bank."`
	CurrentConfig map[string]any `json:"current_config,omitempty" nullable:"true" doc:"Current configuration to refine, if any."`
	HistorySince  *time.Time     `json:"history_since,omitempty" nullable:"true" doc:"Only turns at or after this time are context."`
}

// MemoryBankConfigResponse is a proposed configuration.
type MemoryBankConfigResponse struct {
	Name             string  `json:"name"`
	Description      *string `json:"description" nullable:"true"`
	Type             string  `json:"type"`
	Mode             string  `json:"mode"`
	CompactionPrompt *string `json:"compaction_prompt" nullable:"true"`
	RetentionDays    *int    `json:"retention_days" nullable:"true"`
	MaxTurns         *int    `json:"max_turns" nullable:"true"`
	MaxSizeTokens    *int    `json:"max_size_tokens" nullable:"true"`
	MaxAgeDays       *int    `json:"max_age_days" nullable:"true"`
}

// MemoryBankAiAssistantResponse is the assistant's answer.
type MemoryBankAiAssistantResponse struct {
	ConversationID string                    `json:"conversation_id"`
	Config         *MemoryBankConfigResponse `json:"config"`
	Note           string                    `json:"note"`
	Success        bool                      `json:"success"`
	PromptCallID   *string                   `json:"prompt_call_id" nullable:"true"`
	ExamplePrompts []map[string]string       `json:"example_prompts"`
}

type memoryAssistantInput struct{ Body MemoryBankAiAssistantRequest }
type memoryAssistantOutput struct{ Body MemoryBankAiAssistantResponse }

func assistantUser(ctx context.Context) string {
	p := principal(ctx)
	if p.UserID != "" {
		return p.UserID
	}
	return "key:" + p.KeyID
}

func configResponse(c map[string]any) *MemoryBankConfigResponse {
	if c == nil {
		return nil
	}
	in := memory.ConfigInput(c)
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return &MemoryBankConfigResponse{Name: deref(in.Name), Description: in.Description, Type: deref(in.Type), Mode: deref(in.Mode),
		CompactionPrompt: in.CompactionPrompt, RetentionDays: in.RetentionDays, MaxTurns: in.MaxTurns,
		MaxSizeTokens: in.MaxSizeTokens, MaxAgeDays: in.MaxAgeDays}
}

func (s *Server) memoryAssistant(ctx context.Context, in *memoryAssistantInput) (*memoryAssistantOutput, error) {
	p, err := s.deps.Memory.Propose(ctx, principal(ctx).AccountID, assistantUser(ctx), in.Body.UserInput, in.Body.CurrentConfig, in.Body.HistorySince)
	if err != nil {
		return nil, err
	}
	return &memoryAssistantOutput{Body: MemoryBankAiAssistantResponse{ConversationID: p.Turn.ID, Config: configResponse(p.Config), Note: p.Note,
		Success: p.Config != nil, ExamplePrompts: memory.ExamplePrompts}}, nil
}

type memoryConversationInput struct {
	Limit  int `query:"limit" default:"5" minimum:"1" maximum:"50" doc:"Max turns to return."`
	Offset int `query:"offset" default:"0" minimum:"0" maximum:"1000000" doc:"Number of most-recent turns to skip."`
}

// MemoryBankConversationTurn is one assistant turn.
type MemoryBankConversationTurn struct {
	ConversationID  string         `json:"conversation_id"`
	UserInput       string         `json:"user_input"`
	AINote          *string        `json:"ai_note" nullable:"true"`
	ResultingConfig map[string]any `json:"resulting_config" nullable:"true"`
	Accepted        *bool          `json:"accepted" nullable:"true"`
}

// MemoryBankLastConversationResponse is the user's latest turns.
type MemoryBankLastConversationResponse struct {
	Turns     []MemoryBankConversationTurn `json:"turns"`
	Total     int                          `json:"total"`
	UserInput *string                      `json:"user_input" nullable:"true"`
	AINote    *string                      `json:"ai_note" nullable:"true"`
	Accepted  *bool                        `json:"accepted" nullable:"true"`
}

type memoryConversationOutput struct {
	Body MemoryBankLastConversationResponse
}

func (s *Server) memoryAssistantConversation(ctx context.Context, in *memoryConversationInput) (*memoryConversationOutput, error) {
	list, total, err := s.deps.Memory.Conversation(ctx, principal(ctx).AccountID, assistantUser(ctx), in.Offset, in.Limit)
	if err != nil {
		return nil, err
	}
	out := MemoryBankLastConversationResponse{Turns: []MemoryBankConversationTurn{}, Total: total}
	for _, t := range list {
		out.Turns = append(out.Turns, MemoryBankConversationTurn{ConversationID: t.ID, UserInput: t.UserInput, AINote: t.AINote,
			ResultingConfig: t.Config, Accepted: t.Accepted})
	}
	if n := len(list); n > 0 {
		last := list[n-1]
		out.UserInput, out.AINote, out.Accepted = &last.UserInput, last.AINote, last.Accepted
	}
	return &memoryConversationOutput{Body: out}, nil
}

// MemoryBankAcceptRequest accepts or declines a proposal.
type MemoryBankAcceptRequest struct {
	Accepted bool `json:"accepted" doc:"Whether the user accepted the proposed configuration."`
}

type memoryAcceptInput struct {
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The assistant turn's id."`
	Body           MemoryBankAcceptRequest
}

// OkResponse is {ok: true}.
type memoryOkResponse struct {
	OK bool `json:"ok"`
}
type memoryOkOutput struct{ Body memoryOkResponse }

func (s *Server) memoryAssistantDecide(ctx context.Context, in *memoryAcceptInput) (*memoryOkOutput, error) {
	_, err := s.deps.Memory.Decide(ctx, principal(ctx).AccountID, assistantUser(ctx), in.ConversationID, in.Body.Accepted)
	if err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return &memoryOkOutput{Body: memoryOkResponse{OK: true}}, nil
}
