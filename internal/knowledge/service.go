package knowledge

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/knowledge/rerank"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/store"
)

// Errors the API maps to statuses.
var (
	ErrNotFound                = store.ErrNotFound
	ErrInvalid                 = fault.FieldSentinel([]any{"body"}, "value_error", "invalid request")
	ErrUnsupportedType         = errors.New("unsupported media type") // 415
	ErrTooLarge          error = &fault.TooLarge{Err: errors.New("file too large")}
	ErrSourceKind        error = &fault.BadRequest{Err: errors.New("operation not for this source")}
	ErrSystemManaged     error = &fault.BadRequest{Err: errors.New("system-managed source")}
	ErrReferencedByAgent error = &fault.Conflict{Err: errors.New("knowledge base is used by agents")}
)

// InvalidError is a 422 naming the field at fault.
type InvalidError struct {
	Field, Msg string
	// Index is the element of a list field at fault, when Indexed.
	Index   int
	Indexed bool
}

func (e *InvalidError) Error() string { return e.Field + ": " + e.Msg }
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		loc := []any{"body", e.Field}
		if e.Indexed {
			loc = append(loc, e.Index)
		}
		*t = fault.InvalidAt(loc, e.Msg, "value_error").Because(e)
	}
	return ok
}

func invalid(field, msg string) error { return &InvalidError{Field: field, Msg: msg} }

// Firer starts the agents a trigger fires: the runs area, through the
// server's adapter (knowledge does not import runs).
type Firer interface {
	FireNewContent(ctx context.Context, accountID string, input string, metadata map[string]any) error
}

// Config tunes the area and names the services it uses.
type Config struct {
	// Queue takes the area's jobs (indexing, polls, new_content fires).
	Queue jobs.Enqueuer
	// Firer starts new_content agents (nil: none are started).
	Firer Firer
	// MaxUploadBytes bounds one uploaded file (200 MiB by default).
	MaxUploadBytes int64
	// AllowPrivateFetch lets feeds and crawls reach private, loopback and
	// link-local addresses (tests and trusted networks only).
	AllowPrivateFetch bool
	// AgentsUsingKB reports whether any agent definition of the account
	// names a knowledge base (its deletion is refused then).
	AgentsUsingKB func(ctx context.Context, accountID, kbID string) (bool, error)
	// Rerankers are the HTTP rerankers (OpenAI-compatible or Cohere-style)
	// the operator configured, by the name a knowledge base's
	// reranker_model uses; "offline" is always available.
	Rerankers map[string]rerank.Reranker
	// IndexDir is where the in-process vector index keeps its snapshots
	// between restarts (none when empty: every restart rebuilds).
	IndexDir string
	// FullTextIndexBytes bounds the memory of the loaded full-text
	// indexes (an estimate): past it the least recently searched sources
	// are unloaded until searched again. 0: no bound.
	FullTextIndexBytes int64
	// VectorIndexBytes bounds the memory of the loaded in-process vector
	// graphs (an estimate) the same way; pgvector's live in PostgreSQL.
	// 0: no bound.
	VectorIndexBytes int64
	// PullDone, when set, is told how each scheduled pull of an rss or
	// website source ended (err nil: it succeeded): the alerts area's
	// pull_failed, consecutive_pull_failures and pull_error_rate_spike
	// detectors count on it.
	PullDone func(ctx context.Context, accountID, sourceID string, err error)
}

// DefaultFullTextIndexBytes is the default bound of the loaded full-text
// indexes: 512 MiB holds about 1.8 million passages of 80 words (about
// 290 bytes each, TestLexicalSizeEstimate's corpus at 100,000 passages),
// far beyond the 100,000-passage benchmark, while staying a fraction of a
// small replica's memory beside the vector index.
const DefaultFullTextIndexBytes = 512 << 20

// DefaultVectorIndexBytes is the default bound of the loaded in-process
// vector graphs: 1 GiB holds about 550,000 vectors of the offline
// embedder's 384 dimensions, or about 160,000 of 1,536 (a vector is
// 4 bytes a dimension, its links and id about 400 bytes more).
const DefaultVectorIndexBytes = 1 << 30

// DefaultMaxUploadBytes is the contract's file limit.
const DefaultMaxUploadBytes = 200 << 20

// Service is the knowledge area.
type Service struct {
	db      *store.DB
	blobs   *blob.Store
	queue   jobs.Enqueuer
	models  llm.Provider // metered: charges embedding and rerank calls
	catalog *catalog.Catalog
	index   Index
	lex     *lexIndex
	cfg     Config
	firer   Firer

	embedMu   sync.Mutex
	embedders map[int]*offline.Embedder
	now       func() time.Time
}

// New builds the service.
func New(ctx context.Context, db *store.DB, blobs *blob.Store, models llm.Provider, cat *catalog.Catalog, cfg Config) (*Service, error) {
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	ix, err := OpenIndex(ctx, db, cfg.IndexDir, cfg.VectorIndexBytes)
	if err != nil {
		return nil, err
	}
	return &Service{db: db, blobs: blobs, queue: cfg.Queue, firer: cfg.Firer, models: models, catalog: cat, index: ix,
		lex: newLexIndex(db, cfg.FullTextIndexBytes), cfg: cfg, embedders: map[int]*offline.Embedder{}, now: time.Now}, nil
}

// FlushIndex writes the in-process vector index's pending snapshots (at
// shutdown, after the workers stopped).
func (s *Service) FlushIndex() {
	if s == nil {
		return
	}
	if m, ok := s.index.(*memIndex); ok {
		m.Flush()
	}
}

// IndexName says which search index serves (for logs and docs).
func (s *Service) IndexName() string { return s.index.Name() }

// MaxUploadBytes is the file limit.
func (s *Service) MaxUploadBytes() int64 { return s.cfg.MaxUploadBytes }

func logOnce(once *sync.Once, msg string, args ...any) {
	once.Do(func() { slog.Warn(msg, args...) })
}
