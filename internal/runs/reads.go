package runs

import (
	"context"

	"github.com/agentry/agentry/internal/store"
)

// Run is the account's run as stored (store.ErrNotFound for another
// account's), for callers that need its record rather than a snapshot.
func (s *Service) Run(ctx context.Context, accountID, runID string) (store.Run, error) {
	return s.DB.Run(ctx, accountID, runID)
}

// Attachment is the file a run's step emitted under key, in the account's
// run (store.ErrNotFound otherwise).
func (s *Service) Attachment(ctx context.Context, accountID, runID, key string) (store.RunAttachment, error) {
	return s.DB.RunAttachmentByKey(ctx, accountID, runID, key)
}
