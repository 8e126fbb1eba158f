package api

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/knowledge"
)

// Embedding migrations (routes in api.go): re-embed a custom_index source
// with another model and size in the background; searches keep the old
// index until the new one is complete.

// StartEmbeddingMigrationRequest is the body of a start.
type StartEmbeddingMigrationRequest struct {
	TargetEmbeddingModel   string   `json:"target_embedding_model" minLength:"1" maxLength:"200" doc:"The embedding model to move to."`
	TargetDimensions       int      `json:"target_dimensions" exclusiveMinimum:"0" maximum:"4096" doc:"The vector size to move to."`
	ChunkSize              *int     `json:"chunk_size,omitempty" doc:"Not supported here: a migration keeps the source's chunking (422 when set)."`
	ChunkOverlap           *int     `json:"chunk_overlap,omitempty" doc:"Not supported here (422 when set)."`
	ChunkLanguage          *string  `json:"chunk_language,omitempty" doc:"Not supported here (422 when set)."`
	ChunkSeparators        *string  `json:"chunk_separators,omitempty" doc:"Not supported here (422 when set)."`
	ChunkRegexSeparators   *bool    `json:"chunk_regex_separators,omitempty" doc:"Not supported here (422 when set)."`
	NotificationRecipients []string `json:"notification_recipients,omitempty" maxItems:"20" doc:"Stored with the migration; no mail is sent yet."`
}

// EmbeddingMigrationResponse is a migration's status.
type EmbeddingMigrationResponse struct {
	ID                     string   `json:"id"`
	SourceConnectionID     string   `json:"source_connection_id"`
	SourceIDOld            string   `json:"source_id_old" doc:"The index generation searched before the switch: model@dimensions."`
	SourceIDNew            string   `json:"source_id_new" doc:"The index generation being built: model@dimensions."`
	TargetEmbeddingModel   string   `json:"target_embedding_model"`
	TargetDimensions       int      `json:"target_dimensions"`
	Status                 string   `json:"status" doc:"pending, running, switching, completed, failed or cancelled."`
	Phase                  string   `json:"phase"`
	ProgressCurrent        int      `json:"progress_current"`
	ProgressTotal          int      `json:"progress_total"`
	ProgressMessage        *string  `json:"progress_message"`
	FailureMessage         *string  `json:"failure_message"`
	NotificationRecipients []string `json:"notification_recipients"`
	TaskExecutionID        *string  `json:"task_execution_id"`
	StartedAt              *string  `json:"started_at"`
	CompletedAt            *string  `json:"completed_at"`
	CreatedAt              string   `json:"created_at"`
	UpdatedAt              string   `json:"updated_at"`
}

func migrationResponse(m knowledge.EmbeddingMigration) EmbeddingMigrationResponse {
	return EmbeddingMigrationResponse{ID: m.ID, SourceConnectionID: m.SourceID,
		SourceIDOld: m.OldModel + "@" + itoaAPI(m.OldDims), SourceIDNew: m.TargetModel + "@" + itoaAPI(m.TargetDims),
		TargetEmbeddingModel: m.TargetModel, TargetDimensions: m.TargetDims, Status: m.Status, Phase: m.Phase,
		ProgressCurrent: m.ProgressCurrent, ProgressTotal: m.ProgressTotal, ProgressMessage: m.ProgressMessage,
		FailureMessage: m.FailureMessage, NotificationRecipients: m.NotificationRecipients, StartedAt: optTimestamp(m.StartedAt),
		CompletedAt: optTimestamp(m.CompletedAt), CreatedAt: timestamp(m.CreatedAt), UpdatedAt: timestamp(m.UpdatedAt)}
}

type migrationSourceInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source."`
}

type startMigrationInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source."`
	Body     StartEmbeddingMigrationRequest
}

type migrationOutput struct{ Body EmbeddingMigrationResponse }

type latestMigrationOutput struct{ Body *EmbeddingMigrationResponse }

func (s *Server) startEmbeddingMigration(ctx context.Context, in *startMigrationInput) (*migrationOutput, error) {
	b := in.Body
	m, err := s.deps.Knowledge.StartMigration(ctx, principal(ctx).AccountID, in.SourceID, knowledge.MigrationRequest{
		TargetModel: b.TargetEmbeddingModel, TargetDims: b.TargetDimensions, NotificationRecipients: b.NotificationRecipients,
		RechunkRequested: b.ChunkSize != nil || b.ChunkOverlap != nil || b.ChunkLanguage != nil || b.ChunkSeparators != nil || b.ChunkRegexSeparators != nil})
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &migrationOutput{Body: migrationResponse(m)}, nil
}

// getEmbeddingMigration answers the latest migration, or null for none.
func (s *Server) getEmbeddingMigration(ctx context.Context, in *migrationSourceInput) (*latestMigrationOutput, error) {
	p := principal(ctx)
	m, err := s.deps.Knowledge.LatestMigration(ctx, p.AccountID, in.SourceID)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	if m == nil {
		return &latestMigrationOutput{}, nil // JSON null: no migration was ever started
	}
	r := migrationResponse(*m)
	return &latestMigrationOutput{Body: &r}, nil
}

func (s *Server) cancelEmbeddingMigration(ctx context.Context, in *migrationSourceInput) (*migrationOutput, error) {
	m, err := s.deps.Knowledge.CancelMigration(ctx, principal(ctx).AccountID, in.SourceID)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &migrationOutput{Body: migrationResponse(m)}, nil
}

func itoaAPI(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{digits[n%10]}, b...)
	}
	return string(b)
}
