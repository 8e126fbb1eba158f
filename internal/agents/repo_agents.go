package agents

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// An agent's row, its trigger and the agents it calls keep their SQL in
// this area's repository (issue 31's vertical slices): the reads here,
// the writes in repo_agents_write.go, the trigger in repo_triggers.go.

// Repo is the SQL of the agents' rows. The service reads and writes
// through it; the server hands it, as small interfaces of their own, to
// the areas that read agents but may not import this service (the
// evaluations, governance, regressions, the model lifecycle, the MCP
// exposure: internal/server/wiring_agents.go); and tests and benchmarks
// seed agents with it. It needs only the database, so those areas, built
// before this service, get it without late binding.
type Repo struct{ db *store.DB }

// NewRepo returns the agents' repository over db.
func NewRepo(db *store.DB) Repo { return Repo{db} }

func (s *Service) rows() Repo { return Repo{s.db} }

const agentColumns = `a.id, a.account_id, a.name, a.description, a.schema_version, a.definition, a.change_id,
	a.definition_saved_at, COALESCE(a.definition_saved_by, ''), a.evaluation_mode, a.default_evaluation_tier, a.max_retries,
	a.retry_on_failure, a.sampling_config, a.prompt_model_auto_upgrade_strategy, a.prompt_model_auto_rollback_enabled,
	a.prompt_model_auto_rollback_triggers, a.disabled_at, COALESCE(a.disabled_reason, ''), COALESCE(a.disabled_by, ''),
	COALESCE(a.created_by, ''), a.created_at, a.updated_at, COALESCE(t.id, ''), COALESCE(t.trigger_type, ''), a.oversight_rev`

const agentFrom = ` FROM agents a LEFT JOIN agent_triggers t ON t.agent_id = a.id`

// agentListColumns leave the definition out: a listing shows settings, and
// a page of large workflows would be read for nothing.
var agentListColumns = strings.Replace(agentColumns, "a.definition,", "'',", 1)

func scanAgent(row store.Scanner) (Agent, error) {
	var (
		a                      Agent
		desc, tier             sql.NullString
		def                    string
		sampling, rollback     sql.NullString
		disabledAt             sql.NullTime
		retry, rollbackEnabled bool
	)
	err := row.Scan(&a.ID, &a.AccountID, &a.Name, &desc, &a.SchemaVersion, &def, &a.ChangeID,
		&a.DefinitionSavedAt, &a.DefinitionSavedBy, &a.Settings.EvaluationMode, &tier, &a.Settings.MaxRetries,
		&retry, &sampling, &a.Settings.ModelUpgradeStrategy, &rollbackEnabled,
		&rollback, &disabledAt, &a.DisabledReason, &a.DisabledBy,
		&a.CreatedBy, &a.CreatedAt, &a.UpdatedAt, &a.TriggerID, &a.TriggerType, &a.OversightRev)
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, store.ErrNotFound
	}
	if err != nil {
		return Agent{}, err
	}
	a.Description = store.StringOrNil(desc)
	a.Settings.DefaultEvaluationTier = store.StringOrNil(tier)
	a.Definition = json.RawMessage(def)
	a.Settings.RetryOnFailure, a.Settings.ModelRollbackEnabled = retry, rollbackEnabled
	if sampling.Valid {
		a.Settings.SamplingConfig = json.RawMessage(sampling.String)
	}
	if rollback.Valid {
		if err := json.Unmarshal([]byte(rollback.String), &a.Settings.ModelRollbackTriggers); err != nil {
			return Agent{}, err
		}
		if a.Settings.ModelRollbackTriggers == nil {
			a.Settings.ModelRollbackTriggers = []string{}
		}
	}
	a.DisabledAt = store.TimeOrNil(disabledAt)
	a.DefinitionSavedAt, a.CreatedAt, a.UpdatedAt = a.DefinitionSavedAt.UTC(), a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return a, nil
}

// Agent returns a live (not deleted) agent of the account.
func (r Repo) Agent(ctx context.Context, accountID, id string) (Agent, error) {
	return scanAgent(r.db.R.QueryRowContext(ctx, `SELECT `+agentColumns+agentFrom+
		` WHERE a.id = $1 AND a.account_id = $2 AND a.deleted_at IS NULL`, id, accountID))
}

// AgentExists reports whether the account has a live agent with this id.
func (r Repo) AgentExists(ctx context.Context, accountID, id string) (bool, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID).Scan(&n)
	return n > 0, err
}

// AgentSettings returns the settings of one of the account's live agents,
// without reading its definition: the evaluation overseer reads them
// once per run.
func (r Repo) AgentSettings(ctx context.Context, accountID, id string) (AgentSettings, error) {
	a, err := scanAgent(r.db.R.QueryRowContext(ctx, `SELECT `+agentListColumns+agentFrom+
		` WHERE a.id = $1 AND a.account_id = $2 AND a.deleted_at IS NULL`, id, accountID))
	return a.Settings, err
}

// Agents returns a page of the account's live agents, newest first, and
// how many there are in all. Their Definition is not loaded (empty).
func (r Repo) Agents(ctx context.Context, accountID string, offset, limit int) ([]Agent, int, error) {
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE account_id = $1 AND deleted_at IS NULL`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanAgent, `SELECT `+agentListColumns+agentFrom+
		` WHERE a.account_id = $1 AND a.deleted_at IS NULL ORDER BY a.id DESC LIMIT $2 OFFSET $3`, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// AgentNames lists the account's live agents by name: the candidates an
// import preview ranks as replacements for agents it cannot find.
func (r Repo) AgentNames(ctx context.Context, accountID string) ([]AgentName, error) {
	return store.All(ctx, r.db.R, scanAgentName, `SELECT id, name, description, disabled_at IS NOT NULL FROM agents
		WHERE account_id = $1 AND deleted_at IS NULL ORDER BY name, id`, accountID)
}

// AgentCallers lists the live, enabled agents of the account whose
// definition calls agentID (the agent itself excluded), by name.
func (r Repo) AgentCallers(ctx context.Context, accountID, agentID string) ([]AgentName, error) {
	return agentCallers(ctx, r.db.R, accountID, agentID)
}

func agentCallers(ctx context.Context, q store.Querier, accountID, agentID string) ([]AgentName, error) {
	return store.All(ctx, q, scanAgentName, `SELECT a.id, a.name, a.description, a.disabled_at IS NOT NULL
		FROM agent_calls c JOIN agents a ON a.id = c.caller_id
		WHERE c.account_id = $1 AND c.callee_id = $2 AND a.account_id = $1 AND a.id <> $2
		  AND a.deleted_at IS NULL AND a.disabled_at IS NULL
		ORDER BY a.name, a.id`, accountID, agentID)
}

func scanAgentName(row store.Scanner) (AgentName, error) {
	var (
		n    AgentName
		desc sql.NullString
	)
	if err := row.Scan(&n.ID, &n.Name, &desc, &n.Disabled); err != nil {
		return n, err
	}
	n.Description = store.StringOrNil(desc)
	return n, nil
}

// AgentsAfter lists live agents of every account in id order, after the
// id given ("" for the start), at most limit. Only the model lifecycle
// sweep, a background job over all accounts, may call it; every request
// path reads agents through the account-scoped methods.
func (r Repo) AgentsAfter(ctx context.Context, afterID string, limit int) ([]AgentRef, error) {
	return store.All(ctx, r.db.R, func(row store.Scanner) (ref AgentRef, err error) {
		return ref, row.Scan(&ref.AccountID, &ref.ID)
	}, `SELECT account_id, id FROM agents WHERE deleted_at IS NULL AND id > $1 ORDER BY id LIMIT $2`, afterID, limit)
}

// KnowledgeBaseReferenced reports whether a live agent definition of the
// account names the knowledge base (its id appears in the definition).
// The knowledge area asks it before deleting a knowledge base (the server
// passes it as knowledge.Config.AgentsUsingKB).
func (s *Service) KnowledgeBaseReferenced(ctx context.Context, accountID, id string) (bool, error) {
	var n int
	err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE account_id = $1 AND deleted_at IS NULL AND definition LIKE $2`,
		accountID, "%"+id+"%").Scan(&n)
	return n > 0, err
}

// deleteAgent soft-deletes a live agent. Its rows stay for the runs and
// history that name it; every lookup skips it from now on.
func deleteAgent(ctx context.Context, db *store.DB, accountID, id string) error {
	now := store.Now()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		if err := store.Affected(ctx, tx, `UPDATE agents SET deleted_at = $1, updated_at = $1
			WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL`, now, id, accountID); err != nil {
			return err
		}
		// A deleted agent calls nobody: it must not block pausing its callees.
		// (Nor does it receive mail: mail/inbound gives its alias to the
		// next agent that asks for it.)
		_, err := tx.ExecContext(ctx, `DELETE FROM agent_calls WHERE caller_id = $1`, id)
		return err
	})
}
