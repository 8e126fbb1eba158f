// Package memory owns memory banks: conversation banks (turns kept per
// conversation_key) and general banks (entries kept per optional
// group_key, searched through the knowledge area's hybrid index), the
// five memory step types, compaction (inline after a write, on demand as
// a job, and by an hourly sweep), its dry runs, and the memory-bank
// assistant. A bank's entries live in memory_entries, the system of
// record; a general bank's entries are also contents of the bank's
// system-managed source connection, so search is the knowledge area's.
package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
)

// Bank types.
const (
	TypeConversation = "conversation"
	TypeGeneral      = "general"
)

// Errors the API maps to statuses.
var (
	ErrInvalid           = errors.New("invalid memory bank input") // 422
	ErrNoThreshold error = &fault.BadRequest{Msg: "The memory bank has no compaction threshold: set max_turns, max_size_tokens or max_age_days first", Err: errors.New("the bank has no compaction threshold")}
	ErrBankType          = errors.New("the step does not fit the memory bank's type") // step error
)

// InUseError refuses deleting a bank agents still use; it names them.
type InUseError struct{ Agents [][2]string }

// As reads the refusal as the fault vocabulary's Conflict.
func (e *InUseError) As(target any) bool {
	t, ok := target.(**fault.Conflict)
	if ok {
		*t = &fault.Conflict{Msg: e.Error(), Err: e}
	}
	return ok
}

func (e *InUseError) Error() string {
	names := make([]string, len(e.Agents))
	for i, a := range e.Agents {
		names[i] = fmt.Sprintf("%q (%s)", a[1], a[0])
	}
	return "the memory bank is used by agents " + strings.Join(names, ", ") + "; remove it from their definitions first"
}

// InvalidError is bad input naming its field.
type InvalidError struct{ Field, Msg string }

func (e *InvalidError) Error() string { return e.Field + ": " + e.Msg }
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidField(e.Field, e.Msg).Because(e)
	}
	return ok
}

func invalid(field, msg string) error { return &InvalidError{Field: field, Msg: msg} }

// Service is the memory area.
type Service struct {
	repo      repo
	knowledge *knowledge.Service
	model     llm.Provider
	// chatModel names the model compaction and dry runs call (the
	// router's default chat model: the offline model with no provider).
	chatModel func() string
	queue     jobs.Enqueuer

	// partitionLocks serialise compactions of one partition in this
	// process; across processes the replace transaction's check does.
	partitionLocks sync.Map
}

// New returns the memory area's service. model is the metered router; q
// takes compact-now jobs.
func New(db *store.DB, kn *knowledge.Service, model llm.Provider, chatModel func() string, q jobs.Enqueuer) *Service {
	return &Service{repo: repo{db}, knowledge: kn, model: model, chatModel: chatModel, queue: q}
}

// Limits of what a tenant stores.
const (
	MaxEntryBytes     = 64 << 10 // one entry's text
	MaxPartitionKey   = 512
	MaxPromptBytes    = 8 << 10
	MaxSpeakerLen     = 64
	MaxMetadataBytes  = 16 << 10
	MaxSummaryBytes   = 32 << 10
	MaxHistoryTurns   = 500
	MaxCompactEntries = 5000 // entries one compaction summarises at most
)

// Modes and what each sets.
var modes = map[string]struct{ dims, size, overlap int }{
	"fast_and_cheap":    {256, 3000, 500},
	"balanced":          {512, 1500, 300},
	"slow_and_thorough": {1024, 1000, 200},
	"custom":            {512, 1500, 300},
}

// BankInput is a create or update request; nil leaves a field.
type BankInput struct {
	Name, Description, Type, Mode, CompactionPrompt *string
	EmbeddingModel                                  *string
	Dimensions, ChunkSize, ChunkOverlap             *int
	RetentionDays, MaxTurns, MaxSizeTokens          *int
	MaxAgeDays                                      *int
}

func nonNegative(field string, v *int) error {
	if v != nil && (*v < 0 || *v > 1_000_000_000) {
		return invalid(field, "must be between 0 and 1000000000")
	}
	return nil
}

func (in BankInput) check(create bool) error {
	if in.Name != nil && (strings.TrimSpace(*in.Name) == "" || len(*in.Name) > 255) {
		return invalid("name", "a name of 1 to 255 characters is required")
	}
	if in.Description != nil && len(*in.Description) > 1000 {
		return invalid("description", "at most 1000 characters")
	}
	if in.CompactionPrompt != nil && len(*in.CompactionPrompt) > MaxPromptBytes {
		return invalid("compaction_prompt", fmt.Sprintf("at most %d bytes", MaxPromptBytes))
	}
	for f, v := range map[string]*int{"retention_days": in.RetentionDays, "max_turns": in.MaxTurns, "max_size_tokens": in.MaxSizeTokens, "max_age_days": in.MaxAgeDays} {
		if err := nonNegative(f, v); err != nil {
			return err
		}
		if create && v != nil && *v == 0 {
			return invalid(f, "must be greater than 0")
		}
	}
	if in.RetentionDays != nil && *in.RetentionDays > 36500 {
		return invalid("retention_days", "at most 36500 days")
	}
	return nil
}

// CreateBank validates and stores a bank, and provisions its source.
func (s *Service) CreateBank(ctx context.Context, accountID string, in BankInput) (MemoryBank, error) {
	if in.Name == nil {
		return MemoryBank{}, invalid("name", "a name is required")
	}
	if err := in.check(true); err != nil {
		return MemoryBank{}, err
	}
	b := MemoryBank{AccountID: accountID, Name: strings.TrimSpace(*in.Name), Type: TypeConversation, Mode: "fast_and_cheap",
		Description: in.Description, CompactionPrompt: in.CompactionPrompt, RetentionDays: in.RetentionDays,
		MaxTurns: in.MaxTurns, MaxSizeTokens: in.MaxSizeTokens, MaxAgeDays: in.MaxAgeDays}
	if in.RetentionDays == nil {
		d := 30 // the contract's default
		b.RetentionDays = &d
	}
	if in.Type != nil {
		b.Type = *in.Type
	}
	if b.Type != TypeConversation && b.Type != TypeGeneral {
		return MemoryBank{}, invalid("type", "type is conversation or general")
	}
	if in.Mode != nil {
		b.Mode = *in.Mode
	}
	m, ok := modes[b.Mode]
	if !ok {
		return MemoryBank{}, invalid("mode", "mode is fast_and_cheap, balanced, slow_and_thorough or custom")
	}
	custom := in.EmbeddingModel != nil || in.Dimensions != nil || in.ChunkSize != nil || in.ChunkOverlap != nil
	if custom && b.Mode != "custom" {
		return MemoryBank{}, invalid("mode", "embedding_model, dimensions, chunk_size and chunk_overlap are for mode custom")
	}
	model := knowledge.OfflineEmbeddingModel
	dims, size, overlap := m.dims, m.size, m.overlap
	if in.EmbeddingModel != nil && *in.EmbeddingModel != "" {
		model = *in.EmbeddingModel
	}
	if in.Dimensions != nil {
		dims = *in.Dimensions
	}
	if in.ChunkSize != nil {
		size = *in.ChunkSize
		if in.ChunkOverlap == nil && overlap >= size {
			overlap = size / 5
		}
	}
	if in.ChunkOverlap != nil {
		overlap = *in.ChunkOverlap
	}
	b.EmbeddingModel, b.Dimensions, b.ChunkSize, b.ChunkOverlap = &model, &dims, &size, &overlap
	// The source is provisioned first, so its settings are checked by the
	// knowledge area (embedding model, dimensions, chunking) before the
	// bank exists.
	src, err := s.provision(ctx, accountID, b)
	if err != nil {
		return MemoryBank{}, err
	}
	b.SourceID = &src
	out, err := s.repo.CreateMemoryBank(ctx, b)
	if err != nil {
		_ = s.knowledge.DeleteManagedSource(context.WithoutCancel(ctx), accountID, src)
	}
	return out, err
}

// provision creates the bank's system-managed source connection.
func (s *Service) provision(ctx context.Context, accountID string, b MemoryBank) (string, error) {
	mode := "custom"
	name := "Memory bank: " + b.Name
	if len(name) > 255 {
		name = name[:255]
	}
	src, err := s.knowledge.CreateSource(ctx, accountID, knowledge.CreateSource{Name: strings.ToValidUTF8(name, ""), SourceType: knowledge.TypeCustomIndex,
		IndexMode: &mode, EmbeddingModel: b.EmbeddingModel, Dimensions: b.Dimensions, ChunkSize: b.ChunkSize, ChunkOverlap: b.ChunkOverlap,
		SystemManaged: true})
	var kinv *knowledge.InvalidError
	if errors.As(err, &kinv) {
		return "", invalid(kinv.Field, kinv.Msg)
	}
	if err != nil {
		return "", err
	}
	return src.ID, nil
}

// sourceOf returns the bank's source, provisioning a new one when it was
// deleted (DELETE …/source resets a bank; the next write makes a source).
func (s *Service) sourceOf(ctx context.Context, b MemoryBank) (string, error) {
	if b.SourceID != nil && *b.SourceID != "" {
		return *b.SourceID, nil
	}
	src, err := s.provision(ctx, b.AccountID, b)
	if err != nil {
		return "", err
	}
	cur, err := s.repo.SetMemoryBankSourceIfUnset(ctx, b.AccountID, b.ID, src)
	if err != nil {
		return "", err
	}
	if cur != src { // another writer linked one first
		_ = s.knowledge.DeleteManagedSource(context.WithoutCancel(ctx), b.AccountID, src)
	}
	return cur, nil
}

// Bank returns a bank of the account.
func (s *Service) Bank(ctx context.Context, accountID, id string) (MemoryBank, error) {
	return s.repo.MemoryBank(ctx, accountID, id)
}

// Banks lists a page of the account's banks.
func (s *Service) Banks(ctx context.Context, accountID, bankType, sort string, desc bool, page, limit int) ([]MemoryBank, int, error) {
	return s.repo.MemoryBanks(ctx, accountID, bankType, sort, desc, paging.Offset(page, limit), limit)
}

// UpdateBank changes what in names; the mode and type never change.
func (s *Service) UpdateBank(ctx context.Context, accountID, id string, in BankInput) (MemoryBank, error) {
	if err := in.check(false); err != nil {
		return MemoryBank{}, err
	}
	if in.Mode != nil || in.Type != nil || in.EmbeddingModel != nil || in.Dimensions != nil || in.ChunkSize != nil || in.ChunkOverlap != nil {
		return MemoryBank{}, invalid("mode", "the mode, type and embedding settings of a bank cannot change after creation")
	}
	var name *string
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		name = &n
	}
	return s.repo.UpdateMemoryBank(ctx, accountID, id, BankPatch{Name: name, Description: in.Description,
		CompactionPrompt: in.CompactionPrompt, RetentionDays: in.RetentionDays, MaxTurns: in.MaxTurns, MaxSizeTokens: in.MaxSizeTokens,
		MaxAgeDays: in.MaxAgeDays})
}

// AgentsUsing lists the agents whose definition names the bank.
func (s *Service) AgentsUsing(ctx context.Context, accountID, id string) ([][2]string, error) {
	if _, err := s.repo.MemoryBank(ctx, accountID, id); err != nil {
		return nil, err
	}
	return s.repo.MemoryBankAgents(ctx, accountID, id)
}

// DeleteBank deletes a bank no agent uses, with its entries and source.
func (s *Service) DeleteBank(ctx context.Context, accountID, id string) error {
	b, err := s.repo.MemoryBank(ctx, accountID, id)
	if err != nil {
		return err
	}
	users, err := s.repo.MemoryBankAgents(ctx, accountID, id)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return &InUseError{Agents: users}
	}
	if err := s.repo.DeleteMemoryBank(ctx, accountID, id); err != nil {
		return err
	}
	if b.SourceID != nil {
		if err := s.knowledge.DeleteManagedSource(context.WithoutCancel(ctx), accountID, *b.SourceID); err != nil && !errors.Is(err, store.ErrNotFound) {
			slog.Warn("memory bank source not deleted", "bank", id, "source", *b.SourceID, "err", err)
		}
	}
	return nil
}

// DeleteSource removes the bank's source and every entry; the next write
// provisions a new source.
func (s *Service) DeleteSource(ctx context.Context, accountID, id string) error {
	src, err := s.repo.ClearMemoryBankSource(ctx, accountID, id)
	if err != nil {
		return err
	}
	if src != "" {
		if err := s.knowledge.DeleteManagedSource(context.WithoutCancel(ctx), accountID, src); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}
