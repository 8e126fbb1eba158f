package knowledge

import (
	"context"

	"github.com/agentry/agentry/internal/paging"
)

// SourceContents lists a page of a source's contents, newest first (an
// extension: the console's source page and indexing status). status is ""
// (all), a content status, or ContentsPending.
func (s *Service) SourceContents(ctx context.Context, accountID, sourceID, status string, page, limit int) ([]Content, int, error) {
	return s.repo().sourceContents(ctx, accountID, sourceID, status, paging.Offset(page, limit), limit)
}
