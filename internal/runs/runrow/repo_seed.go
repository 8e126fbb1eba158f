package runrow

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Seed is a finished-looking run the test support writes straight into
// the table (storetest.SeedRuns), for benchmarks and tests of lists at
// scale, where executing the runs would take minutes.
type Seed struct {
	ID, AccountID, AgentID, Status, TriggerType string
	Credits                                     int64
	Error                                       *string
	CreatedAt, StartedAt                        time.Time
	EndedAt                                     *time.Time // nil while processing
}

// InsertSeeds writes seeds in one statement, within the caller's
// transaction; a run's updated_at is its creation time.
func InsertSeeds(ctx context.Context, q store.Querier, seeds []Seed) error {
	var (
		sb   strings.Builder
		args []any
	)
	sb.WriteString(`INSERT INTO runs (id, account_id, agent_id, status, trigger_type, credits, error, created_at, started_at, ended_at, updated_at) VALUES `)
	for i, s := range seeds {
		if i > 0 {
			sb.WriteString(", ")
		}
		p := len(args)
		sb.WriteString("(")
		for k := 1; k <= 11; k++ {
			if k > 1 {
				sb.WriteString(", ")
			}
			sb.WriteString("$" + strconv.Itoa(p+k))
		}
		sb.WriteString(")")
		var ended any
		if s.EndedAt != nil {
			ended = *s.EndedAt
		}
		args = append(args, s.ID, s.AccountID, s.AgentID, s.Status, s.TriggerType, s.Credits, store.NullIfNil(s.Error), s.CreatedAt, s.StartedAt, ended, s.CreatedAt)
	}
	_, err := q.ExecContext(ctx, sb.String(), args...)
	return err
}
