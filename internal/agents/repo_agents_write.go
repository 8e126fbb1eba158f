package agents

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/store"
)

// NewAgent is everything POST /agents creates, in one transaction: the
// agent, its trigger with schedules, and the extras of an import.
type NewAgent struct {
	Agent              Agent // ID, ChangeID and times are assigned
	Trigger            Trigger
	EvaluationCriteria []evalrow.Criterion
	SolutionIDs        []string
	// Also are writes of other areas that go with the agent (an import's
	// alert configurations and governance policies), each run in its
	// transaction once it is stored.
	Also []func(ctx context.Context, tx *sql.Tx, agentID string) error
}

// CreateAgent stores a new agent with its trigger and extras. Either all of
// it is stored or nothing is.
func (r Repo) CreateAgent(ctx context.Context, in NewAgent) (Agent, error) {
	now := store.Now()
	a := in.Agent
	a.ID, a.ChangeID = store.NewID(), store.NewID()
	a.CreatedAt, a.UpdatedAt, a.DefinitionSavedAt = now, now, now
	a.DefinitionSavedBy = a.CreatedBy
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		err := agentrow.Insert(ctx, tx, a, now)
		if err != nil {
			if store.IsForeignKeyViolation(err) {
				return store.ErrNotFound
			}
			return err
		}
		if err := writeCalls(ctx, tx, a.AccountID, a.ID, a.CallTargets); err != nil {
			return err
		}
		trig := in.Trigger
		trig.AccountID, trig.AgentID = a.AccountID, a.ID
		if trig, err = insertTrigger(ctx, tx, trig, now); err != nil {
			return err
		}
		a.TriggerID, a.TriggerType = trig.ID, trig.Type
		if err := insertExtras(ctx, tx, a, in, now); err != nil {
			return err
		}
		for _, also := range in.Also {
			if err := also(ctx, tx, a.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Agent{}, err
	}
	return a, nil
}

// UpdateAgent changes an agent in one transaction: it loads the agent,
// locked, lets edit change it, and saves the result. Metadata is always
// written; when edit changed Definition the previous version goes to the
// history, ChangeID is renewed and the call list is rewritten from
// CallTargets. An error from edit aborts without writing and is returned
// as is (edit can refuse a stale change id with its own error).
func (r Repo) UpdateAgent(ctx context.Context, accountID, id, userID string, edit func(a *Agent) error) (Agent, error) {
	return r.updateAgent(ctx, accountID, id, userID, func(_ *sql.Tx, a *Agent) error { return edit(a) })
}

// updateAgent is UpdateAgent with the transaction at hand, for edits that
// read other rows under the same lock.
func (r Repo) updateAgent(ctx context.Context, accountID, id, userID string, edit func(tx *sql.Tx, a *Agent) error) (Agent, error) {
	var out Agent
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// Touching the row first takes its lock on PostgreSQL (SQLite's
		// write transaction already excludes other writers), so the read
		// below and the write after it cannot interleave with another
		// update of this agent.
		now := store.Now()
		if err := store.Affected(ctx, tx, `UPDATE agents SET updated_at = updated_at
			WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID); err != nil {
			return err
		}
		old, err := scanAgent(tx.QueryRowContext(ctx, `SELECT `+agentColumns+agentFrom+` WHERE a.id = $1`, id))
		if err != nil {
			return err
		}
		a := old
		a.Definition = append(json.RawMessage(nil), old.Definition...)
		if err := edit(tx, &a); err != nil {
			return err
		}
		a.UpdatedAt = now
		if string(a.Definition) != string(old.Definition) || a.SchemaVersion != old.SchemaVersion {
			if err := keepHistory(ctx, tx, old, now, userID); err != nil {
				return err
			}
			a.ChangeID, a.DefinitionSavedAt, a.DefinitionSavedBy = store.NewID(), now, userID
			if err := writeCalls(ctx, tx, a.AccountID, a.ID, a.CallTargets); err != nil {
				return err
			}
		} else {
			a.ChangeID, a.DefinitionSavedAt, a.DefinitionSavedBy = old.ChangeID, old.DefinitionSavedAt, old.DefinitionSavedBy
		}
		rollback, err := agentrow.RollbackTriggersJSON(a.Settings.ModelRollbackTriggers)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE agents SET name = $1, description = $2, schema_version = $3, definition = $4,
			change_id = $5, definition_saved_at = $6, definition_saved_by = $7, evaluation_mode = $8,
			default_evaluation_tier = $9, max_retries = $10, retry_on_failure = $11, sampling_config = $12,
			prompt_model_auto_upgrade_strategy = $13, prompt_model_auto_rollback_enabled = $14,
			prompt_model_auto_rollback_triggers = $15, disabled_at = $16, disabled_reason = $17, disabled_by = $18,
			updated_at = $19, oversight_rev = oversight_rev + 1 WHERE id = $20`,
			a.Name, store.NullIfNil(a.Description), a.SchemaVersion, string(a.Definition),
			a.ChangeID, a.DefinitionSavedAt, store.NullIfEmpty(a.DefinitionSavedBy), a.Settings.EvaluationMode,
			store.NullIfNil(a.Settings.DefaultEvaluationTier), a.Settings.MaxRetries, a.Settings.RetryOnFailure,
			store.NullJSON(a.Settings.SamplingConfig), a.Settings.ModelUpgradeStrategy, a.Settings.ModelRollbackEnabled,
			rollback, timeOrNull(a.DisabledAt), store.NullIfEmpty(a.DisabledReason), store.NullIfEmpty(a.DisabledBy), now, id)
		if err != nil {
			return err
		}
		out = a
		return nil
	})
	return out, err
}

// DisableAgent pauses an agent unless live agents still call it, in one
// transaction so that no caller can appear in between. It returns the
// blocking callers (and no error) when there are any; pausing a paused
// agent keeps its original time and reason.
func (r Repo) DisableAgent(ctx context.Context, accountID, id, userID, reason string) (Agent, []AgentName, error) {
	var callers []AgentName
	a, err := r.updateAgent(ctx, accountID, id, userID, func(tx *sql.Tx, a *Agent) error {
		if a.DisabledAt != nil {
			return nil
		}
		var err error
		callers, err = agentCallers(ctx, tx, a.AccountID, a.ID)
		if err != nil {
			return err
		}
		if len(callers) > 0 {
			return errHasCallers
		}
		now := store.Now()
		a.DisabledAt, a.DisabledReason, a.DisabledBy = &now, reason, userID
		return nil
	})
	if errors.Is(err, errHasCallers) {
		return Agent{}, callers, nil
	}
	return a, nil, err
}

var errHasCallers = errors.New("agent has live callers")

// EnableAgent resumes a paused agent (a no-op for an enabled one).
func (r Repo) EnableAgent(ctx context.Context, accountID, id, userID string) (Agent, error) {
	return r.UpdateAgent(ctx, accountID, id, userID, func(a *Agent) error {
		a.DisabledAt, a.DisabledReason, a.DisabledBy = nil, "", ""
		return nil
	})
}

// keepHistory writes the definition an update replaces to the history
// the versions read (repo_versions.go).
func keepHistory(ctx context.Context, tx *sql.Tx, old Agent, now time.Time, userID string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_definition_history (id, account_id, agent_id, change_id, schema_version,
		definition, saved_at, saved_by, replaced_at, replaced_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		store.NewID(), old.AccountID, old.ID, old.ChangeID, old.SchemaVersion, string(old.Definition),
		old.DefinitionSavedAt, store.NullIfEmpty(old.DefinitionSavedBy), now, store.NullIfEmpty(userID))
	return err
}

// writeCalls replaces the list of agents caller calls.
func writeCalls(ctx context.Context, tx *sql.Tx, accountID, callerID string, callees []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM agent_calls WHERE caller_id = $1`, callerID); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, c := range callees {
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		if _, err := tx.ExecContext(ctx, `INSERT INTO agent_calls (account_id, caller_id, callee_id) VALUES ($1, $2, $3)`,
			accountID, callerID, c); err != nil {
			return err
		}
	}
	return nil
}
