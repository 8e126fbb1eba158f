package memory

import (
	"context"
	"time"
)

// StatsAt is Stats with the time ages are measured from given, so a test
// can compare it with another computation at the same instant.
func (s *Service) StatsAt(ctx context.Context, b MemoryBank, from, to, now time.Time) (map[string]any, error) {
	return s.stats(ctx, b, from, to, now)
}
