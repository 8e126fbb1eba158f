package evals

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// DayResultCounts are an agent's evaluation results of one UTC day (by
// when they were evaluated), by outcome.
type DayResultCounts struct {
	Date                                                    string // 2006-01-02
	Total, Passed, Failed, Error, Skipped, Pending, Flagged int
}

// dailyResultCounts adds up an agent's evaluation results per UTC day of
// their evaluated_at, from the start of from's day, oldest day first; days
// without results are left out. It is one aggregate over the agent's
// index, however many results there are (the console's pass-rate chart
// reads it instead of pages of results).
func (rp repo) dailyResultCounts(ctx context.Context, accountID, agentID string, from time.Time) ([]DayResultCounts, error) {
	// SQLite keeps times as text, "2006-01-02 15:04:05…" in UTC (they
	// are written UTC); PostgreSQL as timestamps, whose UTC date is cheap
	// to group by and formatted once per day, not once per result.
	day, label := `substr(evaluated_at, 1, 10)`, `r.day`
	if rp.db.Dialect == store.Postgres {
		day, label = `(evaluated_at AT TIME ZONE 'UTC')::date`, `to_char(r.day, 'YYYY-MM-DD')`
	}
	from = from.UTC().Truncate(24 * time.Hour)
	rows, err := rp.db.R.QueryContext(ctx, `SELECT `+label+`, COUNT(*),
		COALESCE(SUM(CASE WHEN r.status = 'passed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'error' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'skipped' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'pending' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.flagged THEN 1 ELSE 0 END), 0)
		FROM (SELECT `+day+` AS day, status, flagged FROM evaluation_results
			WHERE account_id = $1 AND agent_id = $2 AND evaluated_at >= $3) r
		GROUP BY r.day ORDER BY r.day`, accountID, agentID, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DayResultCounts{}
	for rows.Next() {
		var d DayResultCounts
		if err := rows.Scan(&d.Date, &d.Total, &d.Passed, &d.Failed, &d.Error, &d.Skipped, &d.Pending, &d.Flagged); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
