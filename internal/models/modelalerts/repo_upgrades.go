package modelalerts

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/store"
)

// ModelUpgrade is an automatic change of an agent's prompt steps from one
// model to another.
type ModelUpgrade struct {
	ID, AccountID, AgentID string
	FromModel, ToModel     string
	// StepIDs are the steps that were moved, so a rollback moves back
	// exactly those and not steps that used ToModel before.
	StepIDs         []string
	Reason          string
	UpgradedAt      time.Time
	RolledBackAt    *time.Time
	RollbackTrigger string
}

// recordUpgrade stores an upgrade that has been applied.
func (rp repo) recordUpgrade(ctx context.Context, u ModelUpgrade) (ModelUpgrade, error) {
	u.ID = store.NewID()
	if u.UpgradedAt.IsZero() {
		u.UpgradedAt = store.Now()
	}
	steps, _ := json.Marshal(append([]string{}, u.StepIDs...)) // [] for none, never null
	_, err := rp.db.W.ExecContext(ctx, `INSERT INTO model_upgrades (id, account_id, agent_id, from_model, to_model, step_ids, reason, upgraded_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, u.ID, u.AccountID, u.AgentID, u.FromModel, u.ToModel, string(steps), u.Reason, u.UpgradedAt.UTC())
	if err != nil && store.IsForeignKeyViolation(err) {
		return ModelUpgrade{}, store.ErrNotFound
	}
	return u, err
}

// upgrades lists an agent's upgrades, oldest first.
func (rp repo) upgrades(ctx context.Context, accountID, agentID string) ([]ModelUpgrade, error) {
	rows, err := rp.db.R.QueryContext(ctx, `SELECT id, account_id, agent_id, from_model, to_model, step_ids, reason, upgraded_at,
		rolled_back_at, COALESCE(rollback_trigger, '') FROM model_upgrades WHERE account_id = $1 AND agent_id = $2
		ORDER BY upgraded_at, id`, accountID, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ModelUpgrade
	for rows.Next() {
		var (
			u     ModelUpgrade
			steps string
			back  sql.NullTime
		)
		if err := rows.Scan(&u.ID, &u.AccountID, &u.AgentID, &u.FromModel, &u.ToModel, &steps, &u.Reason, &u.UpgradedAt,
			&back, &u.RollbackTrigger); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(steps), &u.StepIDs)
		u.UpgradedAt = u.UpgradedAt.UTC()
		if back.Valid {
			t := back.Time.UTC()
			u.RolledBackAt = &t
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// markUpgradeRolledBack records that an upgrade was undone.
func (rp repo) markUpgradeRolledBack(ctx context.Context, accountID, id, trigger string) error {
	res, err := rp.db.W.ExecContext(ctx, `UPDATE model_upgrades SET rolled_back_at = $1, rollback_trigger = $2
		WHERE id = $3 AND account_id = $4 AND rolled_back_at IS NULL`, store.Now(), trigger, id, accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// ModelSignal is a failure observed after a model change.
type ModelSignal struct {
	Signal string
	At     time.Time
}

// recordSignal stores a failure signal about an agent (an evaluation
// that failed, a governance flag or block).
func (rp repo) recordSignal(ctx context.Context, accountID, agentID, signal string, at time.Time) error {
	_, err := rp.db.W.ExecContext(ctx, `INSERT INTO model_signals (id, account_id, agent_id, signal, occurred_at) VALUES ($1, $2, $3, $4, $5)`,
		store.NewID(), accountID, agentID, signal, at.UTC())
	if err != nil && store.IsForeignKeyViolation(err) {
		return store.ErrNotFound
	}
	return err
}

// signalsSince returns an agent's failure signals at or after since:
// the recorded ones, and a lifecycle.SignalRunFailed for every run that failed other
// than by being cancelled (a cancel is the user's doing, not the model's).
func (rp repo) signalsSince(ctx context.Context, accountID, agentID string, since time.Time) ([]ModelSignal, error) {
	out, err := store.All(ctx, rp.db.R, func(row store.Scanner) (ModelSignal, error) {
		var s ModelSignal
		err := row.Scan(&s.Signal, &s.At)
		s.At = s.At.UTC()
		return s, err
	}, `SELECT signal, occurred_at FROM model_signals
		WHERE account_id = $1 AND agent_id = $2 AND occurred_at >= $3`, accountID, agentID, since.UTC())
	if err != nil {
		return nil, err
	}
	// The failed runs are the runs area's table, read through runrow.
	failed, err := runrow.FailedEndingsSince(ctx, rp.db.R, accountID, agentID, since)
	if err != nil {
		return nil, err
	}
	for _, at := range failed {
		out = append(out, ModelSignal{Signal: string(lifecycle.SignalRunFailed), At: at})
	}
	return out, nil
}
