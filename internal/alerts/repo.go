package alerts

// The alerts area keeps its own persistence (issue 31's vertical slices):
// the tables alerts, alert_history, alert_comments, alert_subscribers,
// alert_preferences, alert_configs, alert_default_configs,
// alert_run_marks, alert_source_pulls and alert_deliveries are read and
// written only here (repo.go, repo_configs.go, repo_signals.go). The
// store lends its pools, transactions and scan helpers; the people an
// alert names and distributes to are asked of the accounts area
// (directory), what accounts spent of the billing area's ledger
// (ledgerrow); an agent import's
// configurations are written here too, in the agent's transaction
// (agents.NewAgent.Also), and the agents area reaches them through the
// server's wiring.
//
// Alerts raised from configurations, their history, comments and
// subscribers. An alert is open while triggered or acknowledged; a
// configuration has at most one open alert (alerts.open_config_id is
// unique), and opens no new one within its cooldown.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// repo is the area's SQL.
type repo struct{ db *store.DB }

// Alert statuses.
const (
	AlertTriggered    = "triggered"
	AlertAcknowledged = "acknowledged"
	AlertResolved     = "resolved"
	AlertDismissed    = "dismissed"
)

// alertOpen reports whether an alert in status is still open.
func alertOpen(status string) bool { return status == AlertTriggered || status == AlertAcknowledged }

// Alert is one raised alert.
type Alert struct {
	ID, AccountID, ConfigID, Type, Title, Description, Status string
	AgentID, RunID, SourceConnectionID, SourcePullID          string
	Details                                                   map[string]any
	CreatedAt, UpdatedAt                                      time.Time
	// Read with the alert: counts, and whether the reader is subscribed.
	CommentCount, SubscriberCount int
	IsSubscribed                  bool
}

// OpenOutcome says what openThen did.
type OpenOutcome int

const (
	AlertOpened   OpenOutcome = iota // a new alert
	AlertRepeated                    // the config's open alert counted one more occurrence
	AlertCooling                     // nothing: the config is within its cooldown
	AlertCounted                     // nothing: the run was counted for the config already
)

// openThen raises a for its configuration (a.ConfigID): a new alert in
// status triggered, with its first history entry and subscribers, and the
// configuration's last_alerted_at set — unless the configuration already
// has an open alert (which counts one more occurrence and is returned) or
// its cooldown since the last alert has not passed. In the same
// transaction it first marks markRunID as counted for the config (when
// set; a run already marked changes nothing and reports AlertCounted),
// and calls opened for a new alert, so that what follows from it (its
// notification job) commits with it. One transaction instead of three keeps a raised alert's latency low
// where writers queue (SQLite has one).
func (r repo) openThen(ctx context.Context, a Alert, subscribers []string, now time.Time, markRunID string,
	opened func(tx *sql.Tx, conn *sql.Conn, a Alert) error) (Alert, OpenOutcome, error) {
	now = now.UTC()
	var outcome OpenOutcome
	err := r.db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		if markRunID != "" {
			res, err := tx.ExecContext(ctx, `INSERT INTO alert_run_marks (alert_config_id, run_id, created_at) VALUES ($1, $2, $3)
				ON CONFLICT (alert_config_id, run_id) DO NOTHING`, a.ConfigID, markRunID, now)
			if err != nil {
				if store.IsForeignKeyViolation(err) {
					outcome = AlertCounted // the config was deleted meanwhile
					return nil
				}
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				outcome = AlertCounted
				return nil
			}
		}
		// The config's open alert and cooldown, in one round trip.
		var (
			openID   sql.NullString
			cooldown int
			last     sql.NullTime
		)
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT id FROM alerts WHERE open_config_id = c.id), cooldown_minutes, last_alerted_at
			FROM alert_configs c WHERE c.id = $1 AND c.account_id = $2`, a.ConfigID, a.AccountID).Scan(&openID, &cooldown, &last); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrNotFound
			}
			return err
		}
		if openID.Valid {
			outcome = AlertRepeated
			return repeatAlert(ctx, tx, openID.String, a, now)
		}
		if last.Valid && now.Before(last.Time.Add(time.Duration(cooldown)*time.Minute)) {
			outcome = AlertCooling
			return nil
		}
		outcome = AlertOpened
		a.ID, a.Status, a.CreatedAt, a.UpdatedAt = store.NewID(), AlertTriggered, now, now
		if a.Details == nil {
			a.Details = map[string]any{}
		}
		a.Details["occurrences"] = 1
		details, err := json.Marshal(a.Details)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO alerts (id, account_id, alert_config_id, alert_type, title, description, status,
			agent_id, agent_run_id, source_connection_id, source_connection_pull_id, details, open_config_id, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $3, $13, $13)`,
			a.ID, a.AccountID, a.ConfigID, a.Type, a.Title, store.NullIfEmpty(a.Description), a.Status, store.NullIfEmpty(a.AgentID), store.NullIfEmpty(a.RunID),
			store.NullIfEmpty(a.SourceConnectionID), store.NullIfEmpty(a.SourcePullID), string(details), now); err != nil {
			return err
		}
		if err := addHistory(ctx, tx, a.ID, "", AlertTriggered, "", "", now); err != nil {
			return err
		}
		for _, u := range subscribers {
			if err := subscribe(ctx, tx, a.ID, u, now); err != nil {
				return err
			}
		}
		a.SubscriberCount = len(subscribers)
		if _, err := tx.ExecContext(ctx, `UPDATE alert_configs SET last_alerted_at = $1 WHERE id = $2`, now, a.ConfigID); err != nil {
			return err
		}
		if opened != nil {
			return opened(tx, conn, a)
		}
		return nil
	})
	if err != nil {
		if store.IsUniqueViolation(err) {
			// Another process opened the config's alert first.
			return Alert{}, AlertRepeated, nil
		}
		return Alert{}, 0, err
	}
	if outcome != AlertOpened {
		return Alert{}, outcome, nil
	}
	return a, outcome, nil
}

// repeatAlert counts one more occurrence on an open alert.
func repeatAlert(ctx context.Context, tx *sql.Tx, id string, a Alert, now time.Time) error {
	var raw string
	if err := tx.QueryRowContext(ctx, `SELECT details FROM alerts WHERE id = $1`, id).Scan(&raw); err != nil {
		return err
	}
	d := map[string]any{}
	_ = json.Unmarshal([]byte(raw), &d)
	n, _ := d["occurrences"].(float64)
	d["occurrences"] = int(n) + 1
	d["last_occurred_at"] = now.Format(time.RFC3339Nano)
	if a.RunID != "" {
		d["last_run_id"] = a.RunID
	}
	b, _ := json.Marshal(d)
	_, err := tx.ExecContext(ctx, `UPDATE alerts SET details = $1, updated_at = $2 WHERE id = $3`, string(b), now, id)
	return err
}

func addHistory(ctx context.Context, tx *sql.Tx, alertID, prev, next, userID, note string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO alert_history (id, alert_id, previous_status, new_status, changed_by_user_id, note, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, store.NewID(), alertID, store.NullIfEmpty(prev), next, store.NullIfEmpty(userID), store.NullIfEmpty(note), now)
	return err
}

func subscribe(ctx context.Context, tx *sql.Tx, alertID, userID string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO alert_subscribers (id, alert_id, user_id, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (alert_id, user_id) DO NOTHING`, store.NewID(), alertID, userID, now)
	return err
}

// alertBaseColumns are an alert's own columns, without the counts.
const alertBaseColumns = `a.id, a.account_id, COALESCE(a.alert_config_id, ''), a.alert_type, a.title, COALESCE(a.description, ''), a.status,
	COALESCE(a.agent_id, ''), COALESCE(a.agent_run_id, ''), COALESCE(a.source_connection_id, ''), COALESCE(a.source_connection_pull_id, ''),
	a.details, a.created_at, a.updated_at`

// alertColumns reads an alert with its counts; viewer is the placeholder
// of the reading user.
func alertColumns(viewer string) string {
	return alertBaseColumns + `,
	(SELECT COUNT(*) FROM alert_comments c WHERE c.alert_id = a.id),
	(SELECT COUNT(*) FROM alert_subscribers s WHERE s.alert_id = a.id),
	(SELECT COUNT(*) FROM alert_subscribers s WHERE s.alert_id = a.id AND s.user_id = ` + viewer + `)`
}

func scanAlert(row store.Scanner) (Alert, error) {
	var mine int
	a, err := scanAlertInto(row, &mine)
	a.IsSubscribed = mine > 0
	return a, err
}

// scanAlertInto reads alertBaseColumns and then counts, if any (the
// comments, the subscribers and the reader's own subscriptions).
func scanAlertInto(row store.Scanner, mine *int) (Alert, error) {
	var (
		a       Alert
		details string
	)
	dest := []any{&a.ID, &a.AccountID, &a.ConfigID, &a.Type, &a.Title, &a.Description, &a.Status, &a.AgentID, &a.RunID,
		&a.SourceConnectionID, &a.SourcePullID, &details, &a.CreatedAt, &a.UpdatedAt}
	if mine != nil {
		dest = append(dest, &a.CommentCount, &a.SubscriberCount, mine)
	}
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return a, store.ErrNotFound
	}
	if err != nil {
		return a, err
	}
	a.Details = map[string]any{}
	_ = json.Unmarshal([]byte(details), &a.Details)
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return a, nil
}

// alertFilter selects an account's alerts.
type alertFilter struct {
	Status, AgentID, SourceConnectionID string
	From, To                            *time.Time
}

// list returns a page of an account's alerts, newest first, and how many
// match; viewerUserID decides IsSubscribed.
//
// Only the filters given are in the query, so that without them the count
// reads the index (account_id, created_at, id) alone, and the page walks
// that index backwards and stops at its limit. The page's comment and
// subscriber counts are read for all its alerts at once, after it.
func (r repo) list(ctx context.Context, accountID, viewerUserID string, f alertFilter, offset, limit int) ([]Alert, int, error) {
	count, page, args := alertsQueries(accountID, f)
	var total int
	if err := r.db.R.QueryRowContext(ctx, count, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := r.db.R.QueryContext(ctx, page, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Alert{}
	for rows.Next() {
		a, err := scanAlertInto(rows, nil)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	return out, total, r.counts(ctx, out, viewerUserID)
}

// alertsQueries returns the inbox's count query and page query (whose last
// two placeholders, after args, are the limit and the offset).
func alertsQueries(accountID string, f alertFilter) (count, page string, args []any) {
	where := ` FROM alerts a WHERE a.account_id = $1`
	args = []any{accountID}
	and := func(cond string, v any) {
		args = append(args, v)
		where += ` AND ` + cond + ` $` + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		and(`a.status =`, f.Status)
	}
	if f.AgentID != "" {
		and(`a.agent_id =`, f.AgentID)
	}
	if f.SourceConnectionID != "" {
		and(`a.source_connection_id =`, f.SourceConnectionID)
	}
	if f.From != nil {
		and(`a.created_at >=`, f.From.UTC())
	}
	if f.To != nil {
		and(`a.created_at <=`, f.To.UTC())
	}
	n := len(args)
	return `SELECT COUNT(*)` + where, `SELECT ` + alertBaseColumns + where + ` ORDER BY a.created_at DESC, a.id DESC LIMIT $` + strconv.Itoa(n+1) +
		` OFFSET $` + strconv.Itoa(n+2), args
}

// counts fills in the comment and subscriber counts and IsSubscribed
// of a page of alerts in one query.
func (r repo) counts(ctx context.Context, page []Alert, viewerUserID string) error {
	if len(page) == 0 {
		return nil
	}
	at := make(map[string]int, len(page))
	args := []any{viewerUserID}
	in := make([]string, len(page))
	for i, a := range page {
		at[a.ID] = i
		args = append(args, a.ID)
		in[i] = "$" + strconv.Itoa(len(args))
	}
	ids := strings.Join(in, ", ")
	rows, err := r.db.R.QueryContext(ctx, `SELECT alert_id, COUNT(*), 0, 0 FROM alert_comments WHERE alert_id IN (`+ids+`) GROUP BY alert_id
		UNION ALL
		SELECT alert_id, 0, COUNT(*), SUM(CASE WHEN user_id = $1 THEN 1 ELSE 0 END) FROM alert_subscribers WHERE alert_id IN (`+ids+`) GROUP BY alert_id`,
		args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id                   string
			comments, subs, mine int
		)
		if err := rows.Scan(&id, &comments, &subs, &mine); err != nil {
			return err
		}
		a := &page[at[id]]
		a.CommentCount += comments
		a.SubscriberCount += subs
		a.IsSubscribed = a.IsSubscribed || mine > 0
	}
	return rows.Err()
}

// alert returns one of an account's alerts.
func (r repo) alert(ctx context.Context, accountID, viewerUserID, id string) (Alert, error) {
	return scanAlert(r.db.R.QueryRowContext(ctx, `SELECT `+alertColumns("$1")+` FROM alerts a WHERE a.id = $2 AND a.account_id = $3`,
		viewerUserID, id, accountID))
}

// AlertHistoryEntry is one status change.
type AlertHistoryEntry struct {
	ID, PreviousStatus, NewStatus, ChangedByUserID, ChangedByName, Note string
	CreatedAt                                                           time.Time
}

// AlertComment is a comment on an alert.
type AlertComment struct {
	ID, UserID, UserName, Body string
	CreatedAt                  time.Time
}

// AlertSubscriber is a user subscribed to an alert.
type AlertSubscriber struct {
	ID, UserID, UserName, Email string
	CreatedAt                   time.Time
}

// AlertThread is what the detail of an alert shows beside it.
type AlertThread struct {
	History     []AlertHistoryEntry
	Comments    []AlertComment
	Subscribers []AlertSubscriber
}

// thread reads the history, comments and subscribers of an alert
// (the caller has checked the alert is the account's). The people's names
// and addresses are the accounts area's: asked of it (directory.Contacts)
// for the users the three lists name, "" for a user that is gone.
func (r repo) thread(ctx context.Context, alertID string) (AlertThread, error) {
	th := AlertThread{History: []AlertHistoryEntry{}, Comments: []AlertComment{}, Subscribers: []AlertSubscriber{}}
	var err error
	th.History, err = store.All(ctx, r.db.R, func(row store.Scanner) (AlertHistoryEntry, error) {
		var e AlertHistoryEntry
		err := row.Scan(&e.ID, &e.PreviousStatus, &e.NewStatus, &e.ChangedByUserID, &e.Note, &e.CreatedAt)
		e.CreatedAt = e.CreatedAt.UTC()
		return e, err
	}, `SELECT id, COALESCE(previous_status, ''), new_status, COALESCE(changed_by_user_id, ''), COALESCE(note, ''), created_at
		FROM alert_history WHERE alert_id = $1 ORDER BY id`, alertID)
	if err != nil {
		return th, err
	}
	th.Comments, err = store.All(ctx, r.db.R, func(row store.Scanner) (AlertComment, error) {
		var c AlertComment
		err := row.Scan(&c.ID, &c.UserID, &c.Body, &c.CreatedAt)
		c.CreatedAt = c.CreatedAt.UTC()
		return c, err
	}, `SELECT id, user_id, body, created_at FROM alert_comments WHERE alert_id = $1 ORDER BY id`, alertID)
	if err != nil {
		return th, err
	}
	th.Subscribers, err = store.All(ctx, r.db.R, func(row store.Scanner) (AlertSubscriber, error) {
		var s AlertSubscriber
		err := row.Scan(&s.ID, &s.UserID, &s.CreatedAt)
		s.CreatedAt = s.CreatedAt.UTC()
		return s, err
	}, `SELECT id, user_id, created_at FROM alert_subscribers WHERE alert_id = $1 ORDER BY id`, alertID)
	if err != nil {
		return th, err
	}
	var users []string
	for _, e := range th.History {
		if e.ChangedByUserID != "" {
			users = append(users, e.ChangedByUserID)
		}
	}
	for _, c := range th.Comments {
		users = append(users, c.UserID)
	}
	for _, s := range th.Subscribers {
		users = append(users, s.UserID)
	}
	slices.Sort(users)
	contacts, err := directory.Contacts(ctx, r.db.R, slices.Compact(users))
	if err != nil {
		return th, err
	}
	for i := range th.History {
		th.History[i].ChangedByName = contacts[th.History[i].ChangedByUserID].Name
	}
	for i := range th.Comments {
		th.Comments[i].UserName = contacts[th.Comments[i].UserID].Name
	}
	for i := range th.Subscribers {
		c := contacts[th.Subscribers[i].UserID]
		th.Subscribers[i].UserName, th.Subscribers[i].Email = c.Name, c.Email
	}
	return th, nil
}

// setStatus moves one of an account's alerts to status, recording
// who did it and why. Reopening an alert whose configuration has opened
// another since is store.ErrConflict.
func (r repo) setStatus(ctx context.Context, accountID, id, status, userID, note string) (prev string, err error) {
	now := store.Now()
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		var configID sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT status, alert_config_id FROM alerts WHERE id = $1 AND account_id = $2`, id, accountID).
			Scan(&prev, &configID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrNotFound
			}
			return err
		}
		var open any
		if alertOpen(status) && configID.Valid {
			open = configID.String
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET status = $1, open_config_id = $2, updated_at = $3 WHERE id = $4`,
			status, open, now, id); err != nil {
			if store.IsUniqueViolation(err) {
				return store.ErrConflict
			}
			return err
		}
		return addHistory(ctx, tx, id, prev, status, userID, note, now)
	})
	return prev, err
}

// addComment adds a comment by userID to one of an account's alerts.
func (r repo) addComment(ctx context.Context, accountID, id, userID, body string) error {
	res, err := r.db.W.ExecContext(ctx, `INSERT INTO alert_comments (id, alert_id, user_id, body, created_at)
		SELECT $1, id, $2, $3, $4 FROM alerts WHERE id = $5 AND account_id = $6`, store.NewID(), userID, body, store.Now(), id, accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// subscribeTo subscribes userID to one of an account's alerts (again is a no-op).
func (r repo) subscribeTo(ctx context.Context, accountID, id, userID string) error {
	var n int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts WHERE id = $1 AND account_id = $2`, id, accountID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return r.db.Tx(ctx, func(tx *sql.Tx) error { return subscribe(ctx, tx, id, userID, store.Now()) })
}

// unsubscribeFrom removes userID's subscription (none is a no-op).
func (r repo) unsubscribeFrom(ctx context.Context, accountID, id, userID string) error {
	var n int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts WHERE id = $1 AND account_id = $2`, id, accountID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	_, err := r.db.W.ExecContext(ctx, `DELETE FROM alert_subscribers WHERE alert_id = $1 AND user_id = $2`, id, userID)
	return err
}

// AlertMember is a member of an account as alert distribution sees it.
type AlertMember = directory.RosterMember

// members lists an account's members with their roles and e-mail
// addresses, and the account's kind (the accounts area's roster).
func (r repo) members(ctx context.Context, accountID string) ([]AlertMember, error) {
	return directory.Roster(ctx, r.db.R, accountID)
}

// optOuts lists the alert types userID opted out of in organization orgID.
func (r repo) optOuts(ctx context.Context, userID, orgID string) (map[string]bool, error) {
	rows, err := r.db.R.QueryContext(ctx, `SELECT alert_type FROM alert_preferences WHERE user_id = $1 AND organization_id = $2`, userID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out[t] = true
	}
	return out, rows.Err()
}

// setOptOut records (optOut) or removes userID's opt-out of one alert
// type in organization orgID.
func (r repo) setOptOut(ctx context.Context, userID, orgID, alertType string, optOut bool) error {
	if !optOut {
		_, err := r.db.W.ExecContext(ctx, `DELETE FROM alert_preferences WHERE user_id = $1 AND organization_id = $2 AND alert_type = $3`,
			userID, orgID, alertType)
		return err
	}
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO alert_preferences (user_id, organization_id, alert_type, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (user_id, organization_id, alert_type) DO NOTHING`, userID, orgID, alertType, store.Now())
	if err != nil && store.IsForeignKeyViolation(err) {
		return store.ErrNotFound
	}
	return err
}

// hasOpen reports whether a configuration has an open alert.
func (r repo) hasOpen(ctx context.Context, configID string) (bool, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts WHERE open_config_id = $1`, configID).Scan(&n)
	return n > 0, err
}

// openOf returns the id of a configuration's open (triggered
// or acknowledged) alert, or "" when it has none.
func (r repo) openOf(ctx context.Context, configID string) (string, error) {
	var id string
	err := r.db.R.QueryRowContext(ctx, `SELECT id FROM alerts WHERE open_config_id = $1 LIMIT 1`, configID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// Search is how the account search (internal/search) finds alerts: by
// title and description.
var Search = store.SearchTable{Table: "alerts", NameExpr: "title", DescExpr: "description"}
