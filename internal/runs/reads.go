package runs

import (
	"context"
)

// Run is the account's run as stored (store.ErrNotFound for another
// account's), for callers that need its record rather than a snapshot.
func (s *Service) Run(ctx context.Context, accountID, runID string) (Run, error) {
	return s.Repo.Run(ctx, accountID, runID)
}

// Attachment is the file a run's step emitted under key, in the account's
// run (store.ErrNotFound otherwise).
func (s *Service) Attachment(ctx context.Context, accountID, runID, key string) (RunAttachment, error) {
	return s.Repo.RunAttachmentByKey(ctx, accountID, runID, key)
}
