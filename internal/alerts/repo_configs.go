package alerts

// Alert configurations as the alerts area reads and writes them, and as
// an agent import creates them and an export reads them back.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/billing/ledgerrow"
	"github.com/agentry/agentry/internal/store"
)

const alertConfigColumns = `id, account_id, COALESCE(agent_id, ''), COALESCE(source_connection_id, ''),
	alert_type, enabled, threshold, cooldown_minutes, last_alerted_at, distribution_type, recipient_user_ids, extra,
	created_at, updated_at, COALESCE(webhook_url, ''), COALESCE(webhook_secret_name, ''), checked_at`

func scanAlertConfig(row store.Scanner) (AlertConfig, error) {
	var (
		c                AlertConfig
		threshold, extra sql.NullString
		last, checked    sql.NullTime
		recipients       string
	)
	if err := row.Scan(&c.ID, &c.AccountID, &c.AgentID, &c.SourceConnectionID, &c.AlertType, &c.Enabled, &threshold,
		&c.CooldownMinutes, &last, &c.DistributionType, &recipients, &extra, &c.CreatedAt, &c.UpdatedAt,
		&c.WebhookURL, &c.WebhookSecretName, &checked); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return c, store.ErrNotFound
		}
		return c, err
	}
	c.Threshold, c.Extra = store.RawOrNil(threshold), store.RawOrNil(extra)
	if last.Valid {
		t := last.Time.UTC()
		c.LastAlertedAt = &t
	}
	if checked.Valid {
		t := checked.Time.UTC()
		c.CheckedAt = &t
	}
	if err := json.Unmarshal([]byte(recipients), &c.RecipientUserIDs); err != nil {
		return c, err
	}
	c.RecipientUserIDs = store.NonNil(c.RecipientUserIDs)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return c, nil
}

// createConfig stores a new configuration; store.ErrNotFound when its
// agent is not the account's.
func (r repo) createConfig(ctx context.Context, c AlertConfig) (AlertConfig, error) {
	c.ID, c.CreatedAt = store.NewID(), store.Now()
	c.UpdatedAt = c.CreatedAt
	c.RecipientUserIDs = store.NonNil(c.RecipientUserIDs)
	recipients, _ := json.Marshal(c.RecipientUserIDs)
	if c.AgentID != "" {
		exists, err := agentrow.Exists(ctx, r.db.R, c.AccountID, c.AgentID)
		if err != nil {
			return c, err
		}
		if !exists {
			return c, store.ErrNotFound
		}
	}
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// Counted under the account row's lock, so creates cannot pass
		// the limit together.
		if err := directory.LockAccount(ctx, tx, c.AccountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM alert_configs WHERE account_id = $1 AND COALESCE(agent_id, '') = $2`,
			c.AccountID, c.AgentID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxAlertConfigsPerScope {
			return ErrTooManyAlertConfigs
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_configs (id, account_id, agent_id, source_connection_id, alert_type,
			enabled, threshold, cooldown_minutes, distribution_type, recipient_user_ids, created_at, updated_at, checked_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $11)`,
			c.ID, c.AccountID, store.NullIfEmpty(c.AgentID), store.NullIfEmpty(c.SourceConnectionID), c.AlertType, c.Enabled, store.NullJSON(c.Threshold),
			c.CooldownMinutes, c.DistributionType, string(recipients), c.CreatedAt)
		return err
	})
	if err != nil {
		if store.IsForeignKeyViolation(err) {
			return c, store.ErrNotFound
		}
		return c, err
	}
	t := c.CreatedAt
	c.CheckedAt = &t
	return c, nil
}

// ErrTooManyAlertConfigs means the scope holds MaxAlertConfigsPerScope
// configurations already.
var ErrTooManyAlertConfigs = errors.New("too many alert configurations")

// config returns one of an account's configurations.
func (r repo) config(ctx context.Context, accountID, id string) (AlertConfig, error) {
	return scanAlertConfig(r.db.R.QueryRowContext(ctx, `SELECT `+alertConfigColumns+` FROM alert_configs
		WHERE id = $1 AND account_id = $2`, id, accountID))
}

// configFilter selects configurations: those of an agent, of a
// source, or (neither) the account-level ones of agent alerts, or with
// SourceScope the account-level ones of source alerts.
type configFilter struct {
	AgentID, SourceConnectionID string
	SourceScope                 bool
	SourceTypes                 []string // what counts as a source alert type
}

// configs returns a page of an account's configurations, oldest
// first, and how many match.
func (r repo) configs(ctx context.Context, accountID string, f configFilter, offset, limit int) ([]AlertConfig, int, error) {
	where := ` FROM alert_configs WHERE account_id = $1`
	args := []any{accountID}
	switch {
	case f.AgentID != "":
		where += ` AND agent_id = $2`
		args = append(args, f.AgentID)
	case f.SourceConnectionID != "":
		where += ` AND source_connection_id = $2`
		args = append(args, f.SourceConnectionID)
	default:
		where += ` AND agent_id IS NULL AND source_connection_id IS NULL`
		if len(f.SourceTypes) > 0 {
			ph := make([]string, len(f.SourceTypes))
			for i, t := range f.SourceTypes {
				ph[i] = "$" + strconv.Itoa(len(args)+1)
				args = append(args, t)
			}
			not := " NOT"
			if f.SourceScope {
				not = ""
			}
			where += ` AND alert_type` + not + ` IN (` + strings.Join(ph, ", ") + `)`
		}
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*)`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	list, err := store.All(ctx, r.db.R, scanAlertConfig, `SELECT `+alertConfigColumns+where+
		` ORDER BY id LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, limit, offset)...)
	return list, total, err
}

// updateConfig writes the changeable fields of c (enabled, threshold,
// cooldown, distribution, recipients).
func (r repo) updateConfig(ctx context.Context, c AlertConfig) (AlertConfig, error) {
	recipients, _ := json.Marshal(store.NonNil(c.RecipientUserIDs))
	res, err := r.db.W.ExecContext(ctx, `UPDATE alert_configs SET enabled = $1, threshold = $2, cooldown_minutes = $3,
		distribution_type = $4, recipient_user_ids = $5, updated_at = $6 WHERE id = $7 AND account_id = $8`,
		c.Enabled, store.NullJSON(c.Threshold), c.CooldownMinutes, c.DistributionType, string(recipients), store.Now(), c.ID, c.AccountID)
	if err != nil {
		return c, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return c, store.ErrNotFound
	}
	return r.config(ctx, c.AccountID, c.ID)
}

// setWebhook sets (url "" clears) where a configuration's alerts are posted.
func (r repo) setWebhook(ctx context.Context, accountID, id, url, secretName string) (AlertConfig, error) {
	res, err := r.db.W.ExecContext(ctx, `UPDATE alert_configs SET webhook_url = $1, webhook_secret_name = $2, updated_at = $3
		WHERE id = $4 AND account_id = $5`, store.NullIfEmpty(url), store.NullIfEmpty(secretName), store.Now(), id, accountID)
	if err != nil {
		return AlertConfig{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return AlertConfig{}, store.ErrNotFound
	}
	return r.config(ctx, accountID, id)
}

// deleteConfig removes a configuration; its alerts stay, detached.
func (r repo) deleteConfig(ctx context.Context, accountID, id string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET open_config_id = NULL WHERE open_config_id = $1 AND account_id = $2`, id, accountID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM alert_configs WHERE id = $1 AND account_id = $2`, id, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}

// matching returns the enabled configurations of an account
// of one of types that apply to an event about agentID or sourceID: those
// naming that agent or source, and the account-level ones.
func (r repo) matching(ctx context.Context, accountID string, types []string, agentID, sourceID string) ([]AlertConfig, error) {
	args := []any{accountID, agentID, sourceID}
	ph := make([]string, len(types))
	for i, t := range types {
		ph[i] = "$" + strconv.Itoa(len(args)+1)
		args = append(args, t)
	}
	return store.All(ctx, r.db.R, scanAlertConfig, `SELECT `+alertConfigColumns+` FROM alert_configs
		WHERE account_id = $1 AND enabled AND alert_type IN (`+strings.Join(ph, ", ")+`)
		AND (agent_id IS NULL OR agent_id = $2) AND (source_connection_id IS NULL OR source_connection_id = $3)
		ORDER BY id`, args...)
}

// enabledAfter pages through every account's enabled
// configurations of the given types, by id, for the detectors' sweeps.
func (r repo) enabledAfter(ctx context.Context, types []string, afterID string, limit int) ([]AlertConfig, error) {
	args := []any{afterID, limit}
	ph := make([]string, len(types))
	for i, t := range types {
		ph[i] = "$" + strconv.Itoa(len(args)+1)
		args = append(args, t)
	}
	return store.All(ctx, r.db.R, scanAlertConfig, `SELECT `+alertConfigColumns+` FROM alert_configs
		WHERE enabled AND id > $1 AND alert_type IN (`+strings.Join(ph, ", ")+`) ORDER BY id LIMIT $2`, args...)
}

// setChecked moves a configuration's detector watermark.
func (r repo) setChecked(ctx context.Context, id string, at time.Time) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE alert_configs SET checked_at = $1 WHERE id = $2`, at.UTC(), id)
	return err
}

// activeWithoutConfig lists accounts that have used credits since
// `since`, have no configuration of alertType and were never given its
// default, after afterID, by id, at most limit, for the credits sweep
// that creates the default configurations. Who spent is the billing
// area's ledger's answer (ledgerrow.Spenders), taken a page at a time and
// sifted here by this area's configurations until limit are found or the
// spenders run out.
func (r repo) activeWithoutConfig(ctx context.Context, alertType string, since time.Time, afterID string, limit int) ([]string, error) {
	out := []string{}
	for len(out) < limit {
		spenders, err := ledgerrow.Spenders(ctx, r.db.R, since, afterID, limit)
		if err != nil {
			return nil, err
		}
		if len(spenders) == 0 {
			break
		}
		args := make([]any, 0, len(spenders)+1)
		args = append(args, alertType)
		for _, id := range spenders {
			args = append(args, id)
		}
		in := `IN (` + store.Placeholders(2, len(spenders)) + `)`
		configured, err := store.All(ctx, r.db.R, store.ScanString, `SELECT account_id FROM alert_configs WHERE alert_type = $1 AND account_id `+in+`
			UNION SELECT account_id FROM alert_default_configs WHERE alert_type = $1 AND account_id `+in, args...)
		if err != nil {
			return nil, err
		}
		skip := map[string]bool{}
		for _, id := range configured {
			skip[id] = true
		}
		for _, id := range spenders {
			if !skip[id] && len(out) < limit {
				out = append(out, id)
			}
		}
		if len(spenders) < limit {
			break
		}
		afterID = spenders[len(spenders)-1]
	}
	return out, nil
}

// createDefault stores c as the account's default configuration
// of its type, once: when the account already has a configuration of the
// type or was given its default before, it stores nothing and reports
// false.
func (r repo) createDefault(ctx context.Context, c AlertConfig) (bool, error) {
	created := false
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO alert_default_configs (account_id, alert_type, created_at) VALUES ($1, $2, $3)
			ON CONFLICT (account_id, alert_type) DO NOTHING`, c.AccountID, c.AlertType, store.Now())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM alert_configs WHERE account_id = $1 AND alert_type = $2`,
			c.AccountID, c.AlertType).Scan(&have); err != nil {
			return err
		}
		if have > 0 {
			return nil
		}
		created = true
		c.ID, c.CreatedAt = store.NewID(), store.Now()
		recipients, _ := json.Marshal(store.NonNil(c.RecipientUserIDs))
		_, err = tx.ExecContext(ctx, `INSERT INTO alert_configs (id, account_id, agent_id, source_connection_id, alert_type,
			enabled, threshold, cooldown_minutes, distribution_type, recipient_user_ids, created_at, updated_at, checked_at)
			VALUES ($1, $2, NULL, NULL, $3, $4, $5, $6, $7, $8, $9, $9, $9)`,
			c.ID, c.AccountID, c.AlertType, c.Enabled, store.NullJSON(c.Threshold), c.CooldownMinutes, c.DistributionType,
			string(recipients), c.CreatedAt)
		return err
	})
	return created, err
}

// createWithAgent stores an imported agent's configurations in tx, the
// transaction that creates the agent (agents.NewAgent.Also). The import
// checked them, and their number, before.
func (r repo) createWithAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string, cs []AlertConfig) error {
	now := store.Now()
	for _, c := range cs {
		recipients, err := json.Marshal(store.NonNil(c.RecipientUserIDs))
		if err != nil {
			return err
		}
		var last any
		if c.LastAlertedAt != nil {
			last = c.LastAlertedAt.UTC()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO alert_configs (id, account_id, agent_id, source_connection_id, alert_type,
			enabled, threshold, cooldown_minutes, last_alerted_at, distribution_type, recipient_user_ids, extra, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
			store.NewID(), accountID, agentID, store.NullIfEmpty(c.SourceConnectionID), c.AlertType, c.Enabled, store.NullJSON(c.Threshold),
			c.CooldownMinutes, last, c.DistributionType, string(recipients), store.NullJSON(c.Extra), now); err != nil {
			return err
		}
	}
	return nil
}

// ofAgent lists the configurations of an agent, oldest first, for its export.
func (r repo) ofAgent(ctx context.Context, accountID, agentID string) ([]AlertConfig, error) {
	return store.All(ctx, r.db.R, scanAlertConfig, `SELECT `+alertConfigColumns+` FROM alert_configs
		WHERE account_id = $1 AND agent_id = $2 ORDER BY id`, accountID, agentID)
}
