package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Agent is a stored agent with its trigger type. Definition is the
// workflow as JSON text; this package neither parses nor validates it (the
// agents service does, with the definition package).
type Agent struct {
	ID                string
	AccountID         string
	Name              string
	Description       *string
	SchemaVersion     string
	Definition        json.RawMessage
	ChangeID          string // changes with every definition save (optimistic locking)
	DefinitionSavedAt time.Time
	DefinitionSavedBy string
	Settings          AgentSettings
	TriggerID         string
	TriggerType       string
	DisabledAt        *time.Time
	DisabledReason    string
	DisabledBy        string
	CreatedBy         string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// OversightRev changes whenever the agent, its evaluation criteria or
	// a governance policy over it changes (see bumpOversight).
	OversightRev int64

	// CallTargets are the agents the definition calls. Only written: set it
	// whenever Definition changes, and the store rewrites agent_calls.
	CallTargets []string
}

// AgentSettings are an agent's evaluation and model lifecycle settings.
type AgentSettings struct {
	EvaluationMode        string
	DefaultEvaluationTier *string
	MaxRetries            int
	RetryOnFailure        bool
	SamplingConfig        json.RawMessage // a JSON object, or nil
	ModelUpgradeStrategy  string
	ModelRollbackEnabled  bool
	ModelRollbackTriggers []string // nil: the system default
}

// Disabled reports whether the agent is paused.
func (a Agent) Disabled() bool { return a.DisabledAt != nil }

const agentColumns = `a.id, a.account_id, a.name, a.description, a.schema_version, a.definition, a.change_id,
	a.definition_saved_at, COALESCE(a.definition_saved_by, ''), a.evaluation_mode, a.default_evaluation_tier, a.max_retries,
	a.retry_on_failure, a.sampling_config, a.prompt_model_auto_upgrade_strategy, a.prompt_model_auto_rollback_enabled,
	a.prompt_model_auto_rollback_triggers, a.disabled_at, COALESCE(a.disabled_reason, ''), COALESCE(a.disabled_by, ''),
	COALESCE(a.created_by, ''), a.created_at, a.updated_at, COALESCE(t.id, ''), COALESCE(t.trigger_type, ''), a.oversight_rev`

const agentFrom = ` FROM agents a LEFT JOIN agent_triggers t ON t.agent_id = a.id`

func scanAgent(row interface{ Scan(...any) error }) (Agent, error) {
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
		return Agent{}, ErrNotFound
	}
	if err != nil {
		return Agent{}, err
	}
	a.Description = nullString(desc)
	a.Settings.DefaultEvaluationTier = nullString(tier)
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
	if disabledAt.Valid {
		t := disabledAt.Time.UTC()
		a.DisabledAt = &t
	}
	a.DefinitionSavedAt, a.CreatedAt, a.UpdatedAt = a.DefinitionSavedAt.UTC(), a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return a, nil
}

// Agent returns a live (not deleted) agent of the account.
func (db *DB) Agent(ctx context.Context, accountID, id string) (Agent, error) {
	return scanAgent(db.R.QueryRowContext(ctx, `SELECT `+agentColumns+agentFrom+
		` WHERE a.id = $1 AND a.account_id = $2 AND a.deleted_at IS NULL`, id, accountID))
}

// AgentExists reports whether the account has a live agent with this id.
// It stays here, not in internal/agents: the areas that ask it
// (evaluations, regressions, governance's assistant, the MCP exposure)
// hold only the DB and may not import the agents area (archtest's
// TestAreasDoNotAdapt), until the server supplies them an adapter.
func (db *DB) AgentExists(ctx context.Context, accountID, id string) (bool, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID).Scan(&n)
	return n > 0, err
}

// agentListColumns leave the definition out: a listing shows settings, and
// a page of large workflows would be read for nothing.
var agentListColumns = strings.Replace(agentColumns, "a.definition,", "'',", 1)

// Agents returns a page of the account's live agents, newest first, and
// how many there are in all. Their Definition is not loaded (empty).
func (db *DB) Agents(ctx context.Context, accountID string, offset, limit int) ([]Agent, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE account_id = $1 AND deleted_at IS NULL`, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+agentListColumns+agentFrom+
		` WHERE a.account_id = $1 AND a.deleted_at IS NULL ORDER BY a.id DESC LIMIT $2 OFFSET $3`, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Agent{}
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// AgentName is an agent's id and name, for listings of references.
type AgentName struct {
	ID          string
	Name        string
	Description *string
	Disabled    bool
}

// AgentNames lists the account's live agents by name: the candidates an
// import preview ranks as replacements for agents it cannot find.
func (db *DB) AgentNames(ctx context.Context, accountID string) ([]AgentName, error) {
	return db.agentNames(ctx, `SELECT id, name, description, disabled_at IS NOT NULL FROM agents
		WHERE account_id = $1 AND deleted_at IS NULL ORDER BY name, id`, accountID)
}

// AgentCallers lists the live, enabled agents of the account whose
// definition calls agentID (the agent itself excluded), by name.
func (db *DB) AgentCallers(ctx context.Context, accountID, agentID string) ([]AgentName, error) {
	return agentCallers(ctx, db.R, accountID, agentID)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func agentCallers(ctx context.Context, q querier, accountID, agentID string) ([]AgentName, error) {
	return scanAgentNames(q.QueryContext(ctx, `SELECT a.id, a.name, a.description, a.disabled_at IS NOT NULL
		FROM agent_calls c JOIN agents a ON a.id = c.caller_id
		WHERE c.account_id = $1 AND c.callee_id = $2 AND a.account_id = $1 AND a.id <> $2
		  AND a.deleted_at IS NULL AND a.disabled_at IS NULL
		ORDER BY a.name, a.id`, accountID, agentID))
}

func (db *DB) agentNames(ctx context.Context, query string, args ...any) ([]AgentName, error) {
	return scanAgentNames(db.R.QueryContext(ctx, query, args...))
}

func scanAgentNames(rows *sql.Rows, err error) ([]AgentName, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AgentName{}
	for rows.Next() {
		var (
			n    AgentName
			desc sql.NullString
		)
		if err := rows.Scan(&n.ID, &n.Name, &desc, &n.Disabled); err != nil {
			return nil, err
		}
		n.Description = nullString(desc)
		out = append(out, n)
	}
	return out, rows.Err()
}

func nullInt(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}

func nullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

func nullableJSON(b json.RawMessage) any {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return string(b)
}

func nullablePtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func nullableTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}

// AgentForEvaluation returns one of the account's live agents without its
// definition: the evaluation overseer reads only its settings, once per
// run.
func (db *DB) AgentForEvaluation(ctx context.Context, accountID, id string) (Agent, error) {
	return scanAgent(db.R.QueryRowContext(ctx, `SELECT `+agentListColumns+agentFrom+
		` WHERE a.id = $1 AND a.account_id = $2 AND a.deleted_at IS NULL`, id, accountID))
}

// AgentRef names an agent of an account.
type AgentRef struct{ AccountID, ID string }

// AgentsAfter lists live agents of every account in id order, after the
// id given ("" for the start), at most limit. Only the model lifecycle
// sweep, a background job over all accounts, may call it; every request
// path reads agents through the account-scoped methods. It stays here for
// the reason AgentExists does (models/modelalerts may not import agents).
func (db *DB) AgentsAfter(ctx context.Context, afterID string, limit int) ([]AgentRef, error) {
	return All(ctx, db.R, func(row Scanner) (r AgentRef, err error) {
		return r, row.Scan(&r.AccountID, &r.ID)
	}, `SELECT account_id, id FROM agents WHERE deleted_at IS NULL AND id > $1 ORDER BY id LIMIT $2`, afterID, limit)
}
