package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// Governance policies (imports create agent-scoped ones in
// agents_extras.go; the extension CRUD and the governance assistant manage
// them here), assistant conversations and recorded violations.

const policyColumns = `id, account_id, COALESCE(agent_id, ''), name, description, policy_type, enabled,
	config, knowledge_base_ids, extra, created_at, updated_at`

func scanPolicy(row interface{ Scan(...any) error }) (GovernancePolicy, error) {
	var (
		p                GovernancePolicy
		desc, policyType sql.NullString
		config, extra    sql.NullString
		kbs              string
	)
	if err := row.Scan(&p.ID, &p.AccountID, &p.AgentID, &p.Name, &desc, &policyType, &p.Enabled, &config, &kbs, &extra,
		&p.CreatedAt, &p.UpdatedAt); err != nil {
		return p, err
	}
	p.Description, p.PolicyType = nullString(desc), nullString(policyType)
	p.Config, p.Extra = rawOrNil(config), rawOrNil(extra)
	if err := json.Unmarshal([]byte(kbs), &p.KnowledgeBaseIDs); err != nil {
		return p, err
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

// CreateGovernancePolicy stores a policy: account-wide when AgentID is
// empty, else for that agent, which must be the account's (ErrNotFound).
func (db *DB) CreateGovernancePolicy(ctx context.Context, p GovernancePolicy) (GovernancePolicy, error) {
	now := Now()
	p.ID, p.CreatedAt, p.UpdatedAt = NewID(), now, now
	kbs, _ := json.Marshal(nonNil(p.KnowledgeBaseIDs))
	args := []any{p.ID, p.AccountID, nullable(p.AgentID), p.Name, nullablePtr(p.Description), nullablePtr(p.PolicyType), p.Enabled,
		nullableJSON(p.Config), string(kbs), nullableJSON(p.Extra), now}
	q := `INSERT INTO governance_policies (id, account_id, agent_id, name, description, policy_type, enabled, config,
		knowledge_base_ids, extra, created_at, updated_at)`
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		// Counted under the account row's lock, so creates cannot pass
		// the limit together.
		if err := lockAccountRow(ctx, tx, p.AccountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_policies WHERE account_id = $1
			AND (agent_id = $2 OR (agent_id IS NULL AND $2 = ''))`, p.AccountID, p.AgentID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxPoliciesPerScope {
			return ErrTooManyPolicies
		}
		var (
			res sql.Result
			err error
		)
		if p.AgentID == "" {
			res, err = tx.ExecContext(ctx, q+` VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`, args...)
		} else {
			res, err = tx.ExecContext(ctx, q+` SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11 FROM agents
				WHERE id = $3 AND account_id = $2 AND deleted_at IS NULL`, args...)
		}
		if err != nil {
			if isForeignKeyViolation(err) {
				return ErrNotFound
			}
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return bumpForPolicy(ctx, tx, p.AccountID, p.ID)
	})
	return p, err
}

// MaxPoliciesPerScope bounds the account-wide policies of an account, and
// the policies of each agent: every one applying to a run is checked on
// its input and on every step's output.
const MaxPoliciesPerScope = 100

// ErrTooManyPolicies means the scope holds MaxPoliciesPerScope policies
// already.
var ErrTooManyPolicies = errors.New("too many governance policies")

// GovernancePolicyByID returns one policy of the account.
func (db *DB) GovernancePolicyByID(ctx context.Context, accountID, id string) (GovernancePolicy, error) {
	p, err := scanPolicy(db.R.QueryRowContext(ctx, `SELECT `+policyColumns+` FROM governance_policies WHERE id = $1 AND account_id = $2`, id, accountID))
	if err == sql.ErrNoRows {
		return p, ErrNotFound
	}
	return p, err
}

// UpdateGovernancePolicy writes the editable fields of p back.
func (db *DB) UpdateGovernancePolicy(ctx context.Context, p GovernancePolicy) (GovernancePolicy, error) {
	p.UpdatedAt = Now()
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE governance_policies SET name = $3, description = $4, policy_type = $5,
			enabled = $6, config = $7, updated_at = $8 WHERE id = $1 AND account_id = $2`,
			p.ID, p.AccountID, p.Name, nullablePtr(p.Description), nullablePtr(p.PolicyType), p.Enabled, nullableJSON(p.Config), p.UpdatedAt)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return bumpForPolicy(ctx, tx, p.AccountID, p.ID)
	})
	return p, err
}

// DeleteGovernancePolicy removes a policy of the account.
func (db *DB) DeleteGovernancePolicy(ctx context.Context, accountID, id string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		if err := bumpForPolicy(ctx, tx, accountID, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM governance_policies WHERE id = $1 AND account_id = $2`, id, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// GovernancePolicies lists a page of the account's policies, oldest first:
// all of them, or those of one agent when agentID is set.
func (db *DB) GovernancePolicies(ctx context.Context, accountID, agentID string, offset, limit int) ([]GovernancePolicy, int, error) {
	where := ` WHERE account_id = $1`
	args := []any{accountID}
	if agentID != "" {
		where += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_policies`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	args = append(args, limit, offset)
	return db.policies(ctx, total, `SELECT `+policyColumns+` FROM governance_policies`+where+
		` ORDER BY id LIMIT $`+itoa(len(args)-1)+` OFFSET $`+itoa(len(args)), args...)
}

// ApplicablePolicies lists the enabled policies that govern an agent's
// runs: the account-wide ones and the agent's own (all account-wide ones
// when agentID is empty).
func (db *DB) ApplicablePolicies(ctx context.Context, accountID, agentID string) ([]GovernancePolicy, error) {
	out, _, err := db.policies(ctx, 0, `SELECT `+policyColumns+` FROM governance_policies
		WHERE account_id = $1 AND enabled AND (agent_id IS NULL OR agent_id = $2) ORDER BY id`, accountID, agentID)
	return out, err
}

func (db *DB) policies(ctx context.Context, total int, q string, args ...any) ([]GovernancePolicy, int, error) {
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []GovernancePolicy
	for rows.Next() {
		p, err := scanPolicy(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// GovernanceConversation is an exchange with the governance assistant.
type GovernanceConversation struct {
	ID, AccountID, UserID string
	UserInput             string
	AIResponse            *string
	ProposedActions       json.RawMessage // JSON list
	Accepted              *bool
	Results               json.RawMessage
	CreatedAt             time.Time
	DecidedAt             *time.Time
}

// CreateGovernanceConversation stores a proposed plan.
func (db *DB) CreateGovernanceConversation(ctx context.Context, c GovernanceConversation) (GovernanceConversation, error) {
	c.ID, c.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO governance_conversations (id, account_id, user_id, user_input, ai_response,
		proposed_actions, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		c.ID, c.AccountID, nullable(c.UserID), c.UserInput, nullablePtr(c.AIResponse), string(c.ProposedActions), c.CreatedAt)
	if err != nil && isForeignKeyViolation(err) {
		return c, ErrNotFound
	}
	return c, err
}

const conversationColumns = `id, account_id, COALESCE(user_id, ''), user_input, ai_response, proposed_actions, accepted, results, created_at, decided_at`

func scanConversation(row interface{ Scan(...any) error }) (GovernanceConversation, error) {
	var (
		c        GovernanceConversation
		ai, res  sql.NullString
		actions  string
		accepted sql.NullBool
		decided  sql.NullTime
	)
	if err := row.Scan(&c.ID, &c.AccountID, &c.UserID, &c.UserInput, &ai, &actions, &accepted, &res, &c.CreatedAt, &decided); err != nil {
		return c, err
	}
	c.AIResponse, c.ProposedActions, c.Results = nullString(ai), json.RawMessage(actions), rawOrNil(res)
	if accepted.Valid {
		v := accepted.Bool
		c.Accepted = &v
	}
	if decided.Valid {
		t := decided.Time.UTC()
		c.DecidedAt = &t
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}

// GovernanceConversationByID returns one conversation of the account.
func (db *DB) GovernanceConversationByID(ctx context.Context, accountID, id string) (GovernanceConversation, error) {
	c, err := scanConversation(db.R.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM governance_conversations
		WHERE id = $1 AND account_id = $2`, id, accountID))
	if err == sql.ErrNoRows {
		return c, ErrNotFound
	}
	return c, err
}

// DecideGovernanceConversation marks a pending conversation accepted or
// declined; ErrConflict when it was already decided.
func (db *DB) DecideGovernanceConversation(ctx context.Context, accountID, id string, accepted bool, results json.RawMessage) error {
	res, err := db.W.ExecContext(ctx, `UPDATE governance_conversations SET accepted = $3, results = $4, decided_at = $5
		WHERE id = $1 AND account_id = $2 AND accepted IS NULL`, id, accountID, accepted, nullableJSON(results), Now())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.GovernanceConversationByID(ctx, accountID, id); err != nil {
			return err
		}
		return ErrConflict
	}
	return nil
}

// GovernanceConversations lists the account's latest conversations.
func (db *DB) GovernanceConversations(ctx context.Context, accountID string, limit int) ([]GovernanceConversation, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+conversationColumns+` FROM governance_conversations WHERE account_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GovernanceConversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// GovernanceViolation is a flag or block a policy raised.
type GovernanceViolation struct {
	AccountID, AgentID, RunID, StepID, PolicyID string
	Stage, Action, Rule, Reason                 string
}

// RecordGovernanceViolation stores a flag or block.
func (db *DB) RecordGovernanceViolation(ctx context.Context, v GovernanceViolation) error {
	_, err := db.W.ExecContext(ctx, `INSERT INTO governance_violations (id, account_id, agent_id, run_id, step_id, policy_id,
		stage, action, rule, reason, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		NewID(), v.AccountID, nullable(v.AgentID), nullable(v.RunID), nullable(v.StepID), nullable(v.PolicyID), v.Stage, v.Action,
		v.Rule, v.Reason, Now())
	return err
}

// SetRunGovernanceInput records what the governance input check decided
// for a run (safe, blocked, skipped). With redacted non-nil, a blocked
// run's stored input is replaced by it: the matched data is kept nowhere.
// A run whose input was not stored (its uploads are its input) keeps a
// null input.
func (db *DB) SetRunGovernanceInput(ctx context.Context, accountID, runID, status string, redacted *string) error {
	if redacted == nil {
		_, err := db.W.ExecContext(ctx, `UPDATE runs SET governance_input_status = $1 WHERE id = $2 AND account_id = $3`, status, runID, accountID)
		return err
	}
	return db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET governance_input_status = $1,
			input = CASE WHEN input IS NULL THEN NULL ELSE $2 END WHERE id = $3 AND account_id = $4`, status, *redacted, runID, accountID); err != nil {
			return err
		}
		// An e-mail run's input is made of its message; the subject kept in
		// the metadata would keep what was blocked, so it goes too. The
		// sender stays: the blocklist's auto-block reads it, and lists it.
		var raw sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT metadata FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID).Scan(&raw)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !raw.Valid {
			return nil
		}
		if err != nil {
			return err
		}
		var md map[string]any
		if json.Unmarshal([]byte(raw.String), &md) != nil || md["email_subject"] == nil {
			return nil
		}
		md["email_subject"] = WithheldSubject
		b, err := json.Marshal(md)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE runs SET metadata = $1 WHERE id = $2 AND account_id = $3`, string(b), runID, accountID)
		return err
	})
}

// WithheldSubject replaces the e-mail subject in a blocked run's metadata.
const WithheldSubject = "[withheld: the run's input was blocked by a governance policy]"

// PolicyRef names a policy a run's verdicts came from; Name is empty when
// the policy was deleted since.
type PolicyRef struct{ ID, Name string }

// RunPolicyVerdicts lists, deduplicated by policy, the policies that
// blocked and those that flagged something in a run, in the order they
// first did.
func (db *DB) RunPolicyVerdicts(ctx context.Context, accountID, runID string) (blocked, flagged []PolicyRef, err error) {
	rows, err := db.R.QueryContext(ctx, `SELECT v.action, v.policy_id, COALESCE(p.name, '') FROM governance_violations v
		LEFT JOIN governance_policies p ON p.id = v.policy_id AND p.account_id = v.account_id
		WHERE v.run_id = $1 AND v.account_id = $2 AND v.policy_id IS NOT NULL ORDER BY v.occurred_at, v.id`, runID, accountID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var action string
		var ref PolicyRef
		if err := rows.Scan(&action, &ref.ID, &ref.Name); err != nil {
			return nil, nil, err
		}
		if seen[action+ref.ID] {
			continue
		}
		seen[action+ref.ID] = true
		if action == "block" {
			blocked = append(blocked, ref)
		} else {
			flagged = append(flagged, ref)
		}
	}
	return blocked, flagged, rows.Err()
}

// GovernanceViolationCount counts the account's recorded violations of an
// action ("flag", "block"; "" for all) for a run ("" for all).
func (db *DB) GovernanceViolationCount(ctx context.Context, accountID, runID, action string) (int, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_violations WHERE account_id = $1
		AND ($2 = '' OR run_id = $2) AND ($3 = '' OR action = $3)`, accountID, runID, action).Scan(&n)
	return n, err
}

// SetGovernanceConversationResults stores what accepting a plan did.
func (db *DB) SetGovernanceConversationResults(ctx context.Context, accountID, id string, results json.RawMessage) error {
	_, err := db.W.ExecContext(ctx, `UPDATE governance_conversations SET results = $3 WHERE id = $1 AND account_id = $2`,
		id, accountID, nullableJSON(results))
	return err
}
