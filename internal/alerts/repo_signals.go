package alerts

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/billing/ledgerrow"
	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/store"
)

// What the alert detectors read (runs, credits, source pulls) and the log
// of alert deliveries.

// The runs are the runs area's table: the detectors read them through
// its leaf package, runrow, which counts no regression replay.

// recentTerminalRuns returns the statuses of an agent's last n finished
// runs, latest started first.
func (r repo) recentTerminalRuns(ctx context.Context, accountID, agentID string, n int) ([]string, error) {
	return runrow.RecentTerminalStatuses(ctx, r.db.R, accountID, agentID, n)
}

// runWindow counts an agent's runs created in a window: all of them, those
// that ended, and those that failed.
type runWindow = runrow.Window

// runWindowOf counts the runs of an agent (agentID "" for the whole
// account) created since `since`, for the rate detectors.
func (r repo) runWindowOf(ctx context.Context, accountID, agentID string, since time.Time) (runWindow, error) {
	return runrow.WindowSince(ctx, r.db.R, accountID, agentID, idFloor(since))
}

// idFloor is the smallest UUIDv7 of time t: ids begin with their creation
// time in milliseconds, so "id >= idFloor(t)" selects rows created since t
// through the primary key or an index ending in id.
func idFloor(t time.Time) string {
	ms := uint64(t.UnixMilli())
	return fmt.Sprintf("%08x-%04x-0000-0000-000000000000", ms>>16, ms&0xffff)
}

// runBrief is what the detectors need of a run.
type runBrief = runrow.Brief

// runsEndedBetween lists an account's runs (of one agent unless agentID is
// "") that ended in (from, to], oldest first, at most limit.
func (r repo) runsEndedBetween(ctx context.Context, accountID, agentID string, from, to time.Time, limit int) ([]runBrief, error) {
	return runrow.EndedBetween(ctx, r.db.R, accountID, agentID, from, to, limit)
}

// runBriefOf reads one run for the detectors.
func (r repo) runBriefOf(ctx context.Context, accountID, runID string) (runBrief, error) {
	return runrow.BriefOf(ctx, r.db.R, accountID, runID)
}

// creditsSpent sums what an account was debited in [from, to): the
// billing area's ledger answers (ledgerrow).
func (r repo) creditsSpent(ctx context.Context, accountID string, from, to time.Time) (float64, error) {
	micro, err := ledgerrow.Spent(ctx, r.db.R, accountID, from, to)
	return store.FromMicro(micro), err
}

// recordPull stores the outcome of one pull of a source.
func (r repo) recordPull(ctx context.Context, accountID, sourceID string, failed bool) error {
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO alert_source_pulls (id, account_id, source_connection_id, failed, created_at)
		VALUES ($1, $2, $3, $4, $5)`, store.NewID(), accountID, sourceID, failed, store.Now())
	if err != nil && store.IsForeignKeyViolation(err) {
		return store.ErrNotFound
	}
	return err
}

// recentPulls returns whether each of a source's last n pulls
// failed, newest first.
func (r repo) recentPulls(ctx context.Context, accountID, sourceID string, n int) ([]bool, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT failed FROM alert_source_pulls WHERE account_id = $1 AND source_connection_id = $2
		ORDER BY created_at DESC, id DESC LIMIT $3`, accountID, sourceID, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []bool
	for rows.Next() {
		var f bool
		if err := rows.Scan(&f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// pullWindow counts a source's pulls since `since`, and the failed ones.
func (r repo) pullWindow(ctx context.Context, accountID, sourceID string, since time.Time) (total, failed int, err error) {
	err = r.db.R.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN failed THEN 1 ELSE 0 END), 0) FROM alert_source_pulls
		WHERE account_id = $1 AND source_connection_id = $2 AND created_at >= $3`, accountID, sourceID, since.UTC()).Scan(&total, &failed)
	return total, failed, err
}

// prunePulls deletes pull outcomes older than before.
func (r repo) prunePulls(ctx context.Context, before time.Time) error {
	_, err := r.db.W.ExecContext(ctx, `DELETE FROM alert_source_pulls WHERE created_at < $1`, before.UTC())
	return err
}

// AlertDelivery is one delivery of an alert event to one target.
type AlertDelivery struct {
	ID, AccountID, AlertID, ConfigID, Event, Channel, Target, Status string
	Attempts, ResponseStatus                                         int
	Error                                                            string
	CreatedAt, UpdatedAt                                             time.Time
}

// Delivery statuses.
const (
	AlertDeliveryPending   = "pending"
	AlertDeliveryDelivered = "delivered"
	AlertDeliveryFailed    = "failed"
	AlertDeliverySkipped   = "skipped"
)

// createDelivery records a delivery about to be tried (or skipped).
func (r repo) createDelivery(ctx context.Context, d AlertDelivery) (AlertDelivery, error) {
	d.ID, d.CreatedAt = store.NewID(), store.Now()
	d.UpdatedAt = d.CreatedAt
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO alert_deliveries (id, account_id, alert_id, alert_config_id, event, channel, target,
		status, attempts, response_status, error, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
		d.ID, d.AccountID, d.AlertID, store.NullIfEmpty(d.ConfigID), d.Event, d.Channel, d.Target, d.Status, d.Attempts,
		nullableInt(d.ResponseStatus), store.NullIfEmpty(d.Error), d.CreatedAt)
	return d, err
}

// updateDelivery records the outcome of an attempt.
func (r repo) updateDelivery(ctx context.Context, id, status string, attempts, responseStatus int, errText string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE alert_deliveries SET status = $1, attempts = $2, response_status = $3, error = $4,
		updated_at = $5 WHERE id = $6`, status, attempts, nullableInt(responseStatus), store.NullIfEmpty(errText), store.Now(), id)
	return err
}

// delivery reads one delivery.
func (r repo) delivery(ctx context.Context, id string) (AlertDelivery, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT `+alertDeliveryColumns+` FROM alert_deliveries WHERE id = $1`, id)
	list, err := scanDeliveries(rows, err)
	if err != nil {
		return AlertDelivery{}, err
	}
	if len(list) == 0 {
		return AlertDelivery{}, store.ErrNotFound
	}
	return list[0], nil
}

const alertDeliveryColumns = `id, account_id, alert_id, COALESCE(alert_config_id, ''), event, channel, target, status, attempts,
	COALESCE(response_status, 0), COALESCE(error, ''), created_at, updated_at`

func scanDeliveries(rows *sql.Rows, err error) ([]AlertDelivery, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AlertDelivery{}
	for rows.Next() {
		var d AlertDelivery
		if err := rows.Scan(&d.ID, &d.AccountID, &d.AlertID, &d.ConfigID, &d.Event, &d.Channel, &d.Target, &d.Status, &d.Attempts,
			&d.ResponseStatus, &d.Error, &d.CreatedAt, &d.UpdatedAt); err != nil {
			return nil, err
		}
		d.CreatedAt, d.UpdatedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}

// deliveries returns a page of the deliveries of an account's alerts
// raised by one configuration (configID) or of one alert (alertID),
// newest first, and how many there are.
func (r repo) deliveries(ctx context.Context, accountID, configID, alertID string, offset, limit int) ([]AlertDelivery, int, error) {
	where := ` FROM alert_deliveries WHERE account_id = $1 AND ($2 = '' OR alert_config_id = $2) AND ($3 = '' OR alert_id = $3)`
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*)`+where, accountID, configID, alertID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := scanDeliveries(r.db.R.QueryContext(ctx, `SELECT `+alertDeliveryColumns+where+` ORDER BY created_at DESC, id DESC
		LIMIT $4 OFFSET $5`, accountID, configID, alertID, limit, offset))
	return list, total, err
}

func nullableInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// pruneMarks deletes run marks and source pull outcomes older than
// before: the sweeps never look back that far.
func (r repo) pruneMarks(ctx context.Context, before time.Time) error {
	if _, err := r.db.W.ExecContext(ctx, `DELETE FROM alert_run_marks WHERE created_at < $1`, before.UTC()); err != nil {
		return err
	}
	return r.prunePulls(ctx, before)
}
