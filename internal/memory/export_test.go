package memory

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// StatsAt is Stats with the time ages are measured from given, so a test
// can compare it with another computation at the same instant.
func (s *Service) StatsAt(ctx context.Context, b store.MemoryBank, from, to, now time.Time) (map[string]any, error) {
	return s.stats(ctx, b, from, to, now)
}
