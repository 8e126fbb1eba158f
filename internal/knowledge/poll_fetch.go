package knowledge

import (
	"context"
	"errors"

	"github.com/agentry/agentry/internal/store"
)

// Until the feed and crawl libraries are merged.
func (s *Service) pollFeed(ctx context.Context, src store.Source, state map[string]string) (int, error) {
	return 0, errors.New("feed polling is not built into this server yet")
}

func (s *Service) pollSite(ctx context.Context, src store.Source, state map[string]string) (int, error) {
	return 0, errors.New("site crawling is not built into this server yet")
}
