package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/extract"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Defaults of Config.
const (
	DefaultUploadRetention = 7 * 24 * time.Hour
	DefaultMaxUploadBytes  = 200 << 20
)

// Config tunes the service and names the queue it uses.
type Config struct {
	// Queue takes upload extraction jobs; nil (with nil blobs): uploads
	// are unavailable.
	Queue Enqueuer
	// SoftwareVersion is written into exports.
	SoftwareVersion string
	// UploadRetention is how long an input upload is kept
	// (SERVICE_UPLOAD_RETENTION); DefaultUploadRetention when zero.
	UploadRetention time.Duration
	// MaxUploadBytes bounds one uploaded file; DefaultMaxUploadBytes when zero.
	MaxUploadBytes int64
	// ExtractLimits bound the text extraction of one upload (bytes
	// decompressed, text written, nesting); each zero field is its default.
	ExtractLimits extract.Limits
	// OnSaved, when set, is told of every saved workflow, so that other
	// areas can react at once (the models area checks the models it uses
	// for deprecation). It must not fail the save: errors are its own.
	OnSaved func(ctx context.Context, accountID, agentID string)
	// S3AllowedBuckets are the buckets write_aws_s3_object steps may write
	// with the server's own credentials (SERVICE_S3_ALLOWED_BUCKETS).
	S3AllowedBuckets []string
	// KnownModel reports whether the model catalog has a model id; saving
	// a workflow warns about steps naming one it does not. Nil skips it.
	KnownModel func(id string) bool
	// Policies keeps the governance policies imports create and exports
	// write; nil: imports skip them and exports have none.
	Policies Policies
	// AlertConfigs keeps the alert configurations imports create and
	// exports write; nil: imports skip them and exports have none.
	AlertConfigs AlertConfigs
	// MemoryBank looks up a memory bank of the account that a definition
	// references (store.ErrNotFound when it has none by that id); nil: no
	// reference to a memory bank resolves.
	MemoryBank func(ctx context.Context, accountID, id string) (MemoryBankRef, error)
	// Knowledge answers for the knowledge bases and sources a definition
	// references, and names the knowledge base a template searches; nil:
	// no reference to them resolves.
	Knowledge Knowledge
}

// Knowledge is the knowledge area's knowledge bases and sources, which
// definitions reference (agents → knowledge). The lookups answer
// store.ErrNotFound for an id the account has no live one by.
type Knowledge interface {
	KnowledgeBaseExists(ctx context.Context, accountID, id string) (bool, error)
	SourceExists(ctx context.Context, accountID, id string) (bool, error)
	KnowledgeBaseRef(ctx context.Context, accountID, id string) (KnowledgeRef, error)
	SourceRef(ctx context.Context, accountID, id string) (KnowledgeRef, error)
	// LatestKnowledgeBase is the id of the account's newest live
	// knowledge base.
	LatestKnowledgeBase(ctx context.Context, accountID string) (string, error)
}

// KnowledgeRef is what a definition's reference shows of a knowledge base
// or a source.
type KnowledgeRef struct {
	ID, Name    string
	Description *string
}

// noKnowledge answers for a service built without the knowledge area:
// nothing exists.
type noKnowledge struct{}

func (noKnowledge) KnowledgeBaseExists(context.Context, string, string) (bool, error) {
	return false, nil
}
func (noKnowledge) SourceExists(context.Context, string, string) (bool, error) { return false, nil }
func (noKnowledge) KnowledgeBaseRef(context.Context, string, string) (KnowledgeRef, error) {
	return KnowledgeRef{}, store.ErrNotFound
}
func (noKnowledge) SourceRef(context.Context, string, string) (KnowledgeRef, error) {
	return KnowledgeRef{}, store.ErrNotFound
}
func (noKnowledge) LatestKnowledgeBase(context.Context, string) (string, error) {
	return "", store.ErrNotFound
}

// MemoryBankRef is what a definition's reference shows of a memory bank.
type MemoryBankRef struct {
	ID, Name    string
	Description *string
}

// Enqueuer inserts background jobs (*jobs.Queue).
type Enqueuer interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error)
}

// Service is the agents area.
type Service struct {
	db    *store.DB
	blobs *blob.Store // nil: uploads are unavailable
	queue Enqueuer    // nil: uploads are unavailable
	cfg   Config
	now   func() time.Time
	// parsed spares a run parsing its agent's definition at start and
	// again in the worker.
	parsed *parsedCache
}

// New builds the service. Blobs and the queue may be nil in processes that
// do not take uploads (tests of other areas).
func New(db *store.DB, blobs *blob.Store, cfg Config) *Service {
	if cfg.UploadRetention <= 0 {
		cfg.UploadRetention = DefaultUploadRetention
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.Knowledge == nil {
		cfg.Knowledge = noKnowledge{}
	}
	return &Service{db: db, blobs: blobs, queue: cfg.Queue, cfg: cfg, now: store.Now, parsed: newParsedCache()}
}

// saved tells OnSaved of a save that succeeded.
func (s *Service) saved(ctx context.Context, a Agent, err error) {
	if err == nil && s.cfg.OnSaved != nil {
		s.cfg.OnSaved(ctx, a.AccountID, a.ID)
	}
}

// MaxUploadBytes is the largest file an upload accepts.
func (s *Service) MaxUploadBytes() int64 { return s.cfg.MaxUploadBytes }

// The area's refusals, in the fault vocabulary (the API answers each with
// its status and this sentence). store.ErrNotFound (404) is returned for an
// agent that is absent or another account's.
var (
	// ErrAgentDisabled: the agent is paused (409 for a run).
	ErrAgentDisabled = errors.New("agent is disabled")
	// ErrStaleChange: expected_change_id is not the current one (409).
	ErrStaleChange error = &fault.Conflict{Msg: "The definition was modified since you read it: GET /agents/{agent_id}/definition again, re-apply your change and send its change_id"}
	// ErrUploadsNotAccepted: the agent's templates reference no uploads (400).
	ErrUploadsNotAccepted error = &fault.BadRequest{Msg: "This agent's definition references no uploaded files ({{input}}, {{agent.attachments}} or {{attachments[…]}}), so it does not accept uploads; see GET /agents/{agent_id}/attachment-references"}
	// ErrUploadTooLarge: the file is over MaxUploadBytes (413).
	// StoreUpload returns it as a fault.UploadTooLarge naming the limit.
	ErrUploadTooLarge error = &fault.TooLarge{Err: errors.New("file is too large")}
	// ErrUploadsUnavailable: no blob store or queue in this process (503).
	ErrUploadsUnavailable error = &fault.Unavailable{Msg: "Uploads are not available on this server"}
	// ErrUploadNotFound: the agent exists but the upload does not (404);
	// it matches store.ErrNotFound too.
	ErrUploadNotFound error = &fault.NotFound{What: "Upload", Err: store.ErrNotFound}
)

// DisabledError says why an agent cannot run; it matches ErrAgentDisabled.
type DisabledError struct {
	AgentID string
	Reason  string // manual, email_overload
	Since   time.Time
}

func (e *DisabledError) Error() string {
	return fmt.Sprintf("agent %s is paused (%s) since %s; enable it to run it", e.AgentID, e.Reason, e.Since.Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrAgentDisabled) true.
func (e *DisabledError) Is(target error) bool { return target == ErrAgentDisabled }

// CallersError refuses to pause an agent that live agents still call.
type CallersError struct {
	AgentID string
	Callers []Caller
}

func (e *CallersError) Error() string {
	names := make([]string, len(e.Callers))
	for i, c := range e.Callers {
		names[i] = fmt.Sprintf("%q (%s)", c.Name, c.ID)
	}
	return fmt.Sprintf("agent %s cannot be disabled: live agents call it through call_agent steps: %s; disable them first",
		e.AgentID, strings.Join(names, ", "))
}

// As reads the refusal as the fault vocabulary's Conflict.
func (e *CallersError) As(target any) bool {
	t, ok := target.(**fault.Conflict)
	if ok {
		*t = &fault.Conflict{Msg: e.Error(), Err: e}
	}
	return ok
}

// Caller is an agent calling another (AgentCallerApiResponse).
type Caller struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Disabled bool   `json:"disabled"`
}

// InvalidError is a request the service refuses field by field (422).
type InvalidError struct{ Items []FieldProblem }

// FieldProblem is one refused field: its location in the request
// (["body", "name"]), a sentence, and a machine-readable type.
type FieldProblem struct {
	Loc  []any
	Msg  string
	Type string
}

func (e *InvalidError) Error() string {
	msgs := make([]string, len(e.Items))
	for i, p := range e.Items {
		msgs[i] = fmt.Sprintf("%v: %s", p.Loc, p.Msg)
	}
	return "invalid request: " + strings.Join(msgs, "; ")
}

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		items := make([]fault.Item, len(e.Items))
		for i, p := range e.Items {
			items[i] = fault.Item{Loc: p.Loc, Msg: p.Msg, Type: p.Type}
		}
		*t = &fault.Invalid{Items: items, Err: e}
	}
	return ok
}

func invalid(msg, typ string, loc ...any) *InvalidError {
	return &InvalidError{Items: []FieldProblem{{Loc: loc, Msg: msg, Type: typ}}}
}
