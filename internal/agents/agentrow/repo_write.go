package agentrow

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Insert writes a new agent's row (not its calls, trigger or extras),
// created at now, within the caller's transaction: the agents
// repository's CreateAgent, and the test support that seeds an agent
// without the agents area's repository (storetest.JudgedAgent; the agents
// area's own tests use it, so it cannot import that area).
func Insert(ctx context.Context, q store.Querier, a Agent, now time.Time) error {
	rollback, err := RollbackTriggersJSON(a.Settings.ModelRollbackTriggers)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO agents (id, account_id, name, description, schema_version, definition,
		change_id, definition_saved_at, definition_saved_by, evaluation_mode, default_evaluation_tier, max_retries,
		retry_on_failure, sampling_config, prompt_model_auto_upgrade_strategy, prompt_model_auto_rollback_enabled,
		prompt_model_auto_rollback_triggers, created_by, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)`,
		a.ID, a.AccountID, a.Name, store.NullIfNil(a.Description), a.SchemaVersion, string(a.Definition),
		a.ChangeID, now, store.NullIfEmpty(a.CreatedBy), a.Settings.EvaluationMode, store.NullIfNil(a.Settings.DefaultEvaluationTier),
		a.Settings.MaxRetries, a.Settings.RetryOnFailure, store.NullJSON(a.Settings.SamplingConfig),
		a.Settings.ModelUpgradeStrategy, a.Settings.ModelRollbackEnabled, rollback, store.NullIfEmpty(a.CreatedBy), now)
	return err
}

// InsertTrigger writes an agent's trigger (not its schedules), created at
// now, within the caller's transaction.
func InsertTrigger(ctx context.Context, q store.Querier, id, accountID, agentID, triggerType string, config json.RawMessage, now time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO agent_triggers (id, account_id, agent_id, trigger_type, config, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, id, accountID, agentID, triggerType, string(config), now)
	return err
}

// RollbackTriggersJSON is the stored form of an agent's model rollback
// triggers: NULL for nil (the system default), else a JSON list.
func RollbackTriggersJSON(triggers []string) (any, error) {
	if triggers == nil {
		return nil, nil
	}
	b, err := json.Marshal(triggers)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}
