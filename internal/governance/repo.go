package governance

// The governance area keeps its own persistence (issue 31's vertical
// slices): the tables governance_policies, governance_conversations and
// governance_violations are read and written only here. The store lends
// its pools, transactions and scan helpers, and bumps the oversight
// revision of the agents a policy governs (agentrow.BumpOversight).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// GovernancePolicy is a governance policy; AgentID is set for agent-scoped
// ones.
type GovernancePolicy struct {
	ID               string
	AccountID        string
	AgentID          string
	Name             string
	Description      *string
	PolicyType       *string
	Enabled          bool
	Config           json.RawMessage
	KnowledgeBaseIDs []string
	// Extra keeps the keys of an imported policy this version does not
	// model, so an export gives them back.
	Extra     json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
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

// GovernanceViolation is a flag or block a policy raised, to record.
type GovernanceViolation struct {
	AccountID, AgentID, RunID, StepID, PolicyID string
	Stage, Action, Rule, Reason                 string
}

// GovernanceViolationRecord is a recorded flag or block as listed: where
// it happened, which policy and rule, and why. The matched text was never
// stored, so it cannot be listed.
type GovernanceViolationRecord struct {
	ID                          string
	AgentID, RunID, StepID      *string
	PolicyID                    *string
	PolicyName                  string // "" when the policy was deleted since
	Stage, Action, Rule, Reason string
	OccurredAt                  time.Time
}

// GovernanceViolationFilter narrows the list; empty fields select all.
type GovernanceViolationFilter struct {
	Action, AgentID, RunID, PolicyID string
}

// PolicyRef names a policy a run's verdicts came from; Name is empty when
// the policy was deleted since.
type PolicyRef struct{ ID, Name string }

// MaxPoliciesPerScope bounds the account-wide policies of an account, and
// the policies of each agent: every one applying to a run is checked on
// its input and on every step's output.
const MaxPoliciesPerScope = 100

// errTooManyPolicies means the scope holds MaxPoliciesPerScope policies
// already.
var errTooManyPolicies = errors.New("too many governance policies")

// repo is the area's SQL.
type repo struct{ db *store.DB }

const policyColumns = `id, account_id, COALESCE(agent_id, ''), name, description, policy_type, enabled,
	config, knowledge_base_ids, extra, created_at, updated_at`

func scanPolicy(row store.Scanner) (GovernancePolicy, error) {
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
	p.Description, p.PolicyType = store.StringOrNil(desc), store.StringOrNil(policyType)
	p.Config, p.Extra = store.RawOrNil(config), store.RawOrNil(extra)
	if err := json.Unmarshal([]byte(kbs), &p.KnowledgeBaseIDs); err != nil {
		return p, err
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

const insertPolicy = `INSERT INTO governance_policies (id, account_id, agent_id, name, description, policy_type, enabled, config,
	knowledge_base_ids, extra, created_at, updated_at)`

// policyArgs are insertPolicy's values for p, $1 to $11.
func policyArgs(p GovernancePolicy) []any {
	kbs := p.KnowledgeBaseIDs
	if kbs == nil {
		kbs = []string{}
	}
	b, _ := json.Marshal(kbs)
	return []any{p.ID, p.AccountID, store.NullIfEmpty(p.AgentID), p.Name, store.NullIfNil(p.Description), store.NullIfNil(p.PolicyType), p.Enabled,
		store.NullJSON(p.Config), string(b), store.NullJSON(p.Extra), p.CreatedAt}
}

// createPolicy stores a policy: account-wide when AgentID is empty, else
// for that agent, which must be the account's (store.ErrNotFound).
func (r repo) createPolicy(ctx context.Context, p GovernancePolicy) (GovernancePolicy, error) {
	now := store.Now()
	p.ID, p.CreatedAt, p.UpdatedAt = store.NewID(), now, now
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		// Counted under the account row's lock, so creates cannot pass
		// the limit together.
		if err := directory.LockAccount(ctx, tx, p.AccountID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_policies WHERE account_id = $1
			AND (agent_id = $2 OR (agent_id IS NULL AND $2 = ''))`, p.AccountID, p.AgentID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxPoliciesPerScope {
			return errTooManyPolicies
		}
		if p.AgentID != "" {
			// The agent must be a live one of the account, asked in this
			// transaction (the agents area's question, agentrow.Live).
			live, err := agentrow.Live(ctx, tx, p.AccountID, p.AgentID)
			if err != nil {
				return err
			}
			if !live {
				return store.ErrNotFound
			}
		}
		if _, err := tx.ExecContext(ctx, insertPolicy+` VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`, policyArgs(p)...); err != nil {
			if store.IsForeignKeyViolation(err) {
				return store.ErrNotFound
			}
			return err
		}
		return agentrow.BumpOversight(ctx, tx, p.AccountID, p.AgentID)
	})
	return p, err
}

// createForAgent stores an imported agent's own policies in the
// transaction that creates the agent (a new agent's oversight revision is
// its first: nothing to bump).
func (r repo) createForAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string, ps []GovernancePolicy) error {
	now := store.Now()
	for _, p := range ps {
		p.ID, p.AccountID, p.AgentID, p.CreatedAt = store.NewID(), accountID, agentID, now
		if _, err := tx.ExecContext(ctx, insertPolicy+` VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`, policyArgs(p)...); err != nil {
			return err
		}
	}
	return nil
}

// policyByID returns one policy of the account.
func (r repo) policyByID(ctx context.Context, accountID, id string) (GovernancePolicy, error) {
	return store.One(ctx, r.db.R, scanPolicy, `SELECT `+policyColumns+` FROM governance_policies WHERE id = $1 AND account_id = $2`, id, accountID)
}

// updatePolicy writes the editable fields of p back.
func (r repo) updatePolicy(ctx context.Context, p GovernancePolicy) (GovernancePolicy, error) {
	p.UpdatedAt = store.Now()
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := store.Affected(ctx, tx, `UPDATE governance_policies SET name = $3, description = $4, policy_type = $5,
			enabled = $6, config = $7, updated_at = $8 WHERE id = $1 AND account_id = $2`,
			p.ID, p.AccountID, p.Name, store.NullIfNil(p.Description), store.NullIfNil(p.PolicyType), p.Enabled, store.NullJSON(p.Config), p.UpdatedAt); err != nil {
			return err
		}
		return r.bumpFor(ctx, tx, p.AccountID, p.ID)
	})
	return p, err
}

// deletePolicy removes a policy of the account.
func (r repo) deletePolicy(ctx context.Context, accountID, id string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := r.bumpFor(ctx, tx, accountID, id); err != nil {
			return err
		}
		return store.Affected(ctx, tx, `DELETE FROM governance_policies WHERE id = $1 AND account_id = $2`, id, accountID)
	})
}

// bumpFor bumps the oversight revision of the agents a policy governs: its
// agent, or all of the account's when it is account-wide; none when there
// is no such policy.
func (r repo) bumpFor(ctx context.Context, tx *sql.Tx, accountID, policyID string) error {
	var agentID sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT agent_id FROM governance_policies WHERE id = $1 AND account_id = $2`,
		policyID, accountID).Scan(&agentID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return agentrow.BumpOversight(ctx, tx, accountID, agentID.String)
}

// policies lists a page of the account's policies, oldest first: all of
// them, or those of one agent when agentID is set.
func (r repo) policies(ctx context.Context, accountID, agentID string, offset, limit int) ([]GovernancePolicy, int, error) {
	where := ` WHERE account_id = $1`
	args := []any{accountID}
	if agentID != "" {
		where += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_policies`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	args = append(args, limit, offset)
	out, err := store.All(ctx, r.db.R, scanPolicy, `SELECT `+policyColumns+` FROM governance_policies`+where+
		` ORDER BY id LIMIT $`+strconv.Itoa(len(args)-1)+` OFFSET $`+strconv.Itoa(len(args)), args...)
	return out, total, err
}

// agentPolicies lists the policies scoped to an agent, oldest first (an
// export's).
func (r repo) agentPolicies(ctx context.Context, accountID, agentID string) ([]GovernancePolicy, error) {
	return store.All(ctx, r.db.R, scanPolicy, `SELECT `+policyColumns+` FROM governance_policies
		WHERE account_id = $1 AND agent_id = $2 ORDER BY id`, accountID, agentID)
}

// applicablePolicies lists the enabled policies that govern an agent's
// runs: the account-wide ones and the agent's own (all account-wide ones
// when agentID is empty).
func (r repo) applicablePolicies(ctx context.Context, accountID, agentID string) ([]GovernancePolicy, error) {
	return store.All(ctx, r.db.R, scanPolicy, `SELECT `+policyColumns+` FROM governance_policies
		WHERE account_id = $1 AND enabled AND (agent_id IS NULL OR agent_id = $2) ORDER BY id`, accountID, agentID)
}

// createConversation stores a proposed plan.
func (r repo) createConversation(ctx context.Context, c GovernanceConversation) (GovernanceConversation, error) {
	c.ID, c.CreatedAt = store.NewID(), store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO governance_conversations (id, account_id, user_id, user_input, ai_response,
		proposed_actions, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		c.ID, c.AccountID, store.NullIfEmpty(c.UserID), c.UserInput, store.NullIfNil(c.AIResponse), string(c.ProposedActions), c.CreatedAt)
	if err != nil && store.IsForeignKeyViolation(err) {
		return c, store.ErrNotFound
	}
	return c, err
}

const conversationColumns = `id, account_id, COALESCE(user_id, ''), user_input, ai_response, proposed_actions, accepted, results, created_at, decided_at`

func scanConversation(row store.Scanner) (GovernanceConversation, error) {
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
	c.AIResponse, c.ProposedActions, c.Results = store.StringOrNil(ai), json.RawMessage(actions), store.RawOrNil(res)
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

// conversationByID returns one conversation of the account.
func (r repo) conversationByID(ctx context.Context, accountID, id string) (GovernanceConversation, error) {
	return store.One(ctx, r.db.R, scanConversation, `SELECT `+conversationColumns+` FROM governance_conversations
		WHERE id = $1 AND account_id = $2`, id, accountID)
}

// decideConversation marks a pending conversation accepted or declined;
// store.ErrConflict when it was already decided.
func (r repo) decideConversation(ctx context.Context, accountID, id string, accepted bool) error {
	err := store.Affected(ctx, r.db.W, `UPDATE governance_conversations SET accepted = $3, decided_at = $4
		WHERE id = $1 AND account_id = $2 AND accepted IS NULL`, id, accountID, accepted, store.Now())
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, err := r.conversationByID(ctx, accountID, id); err != nil {
		return err
	}
	return store.ErrConflict
}

// conversations lists the account's latest conversations.
func (r repo) conversations(ctx context.Context, accountID string, limit int) ([]GovernanceConversation, error) {
	return store.All(ctx, r.db.R, scanConversation, `SELECT `+conversationColumns+` FROM governance_conversations
		WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, accountID, limit)
}

// setConversationResults stores what accepting a plan did.
func (r repo) setConversationResults(ctx context.Context, accountID, id string, results json.RawMessage) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE governance_conversations SET results = $3 WHERE id = $1 AND account_id = $2`,
		id, accountID, store.NullJSON(results))
	return err
}

// recordViolation stores a flag or block.
func (r repo) recordViolation(ctx context.Context, v GovernanceViolation) error {
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO governance_violations (id, account_id, agent_id, run_id, step_id, policy_id,
		stage, action, rule, reason, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		store.NewID(), v.AccountID, store.NullIfEmpty(v.AgentID), store.NullIfEmpty(v.RunID), store.NullIfEmpty(v.StepID), store.NullIfEmpty(v.PolicyID), v.Stage, v.Action,
		v.Rule, v.Reason, store.Now())
	return err
}

// runVerdicts lists, deduplicated by policy, the policies that blocked and
// those that flagged something in a run, in the order they first did.
func (r repo) runVerdicts(ctx context.Context, accountID, runID string) (blocked, flagged []PolicyRef, err error) {
	type verdict struct {
		action string
		ref    PolicyRef
	}
	all, err := store.All(ctx, r.db.R, func(row store.Scanner) (verdict, error) {
		var v verdict
		return v, row.Scan(&v.action, &v.ref.ID, &v.ref.Name)
	}, `SELECT v.action, v.policy_id, COALESCE(p.name, '') FROM governance_violations v
		LEFT JOIN governance_policies p ON p.id = v.policy_id AND p.account_id = v.account_id
		WHERE v.run_id = $1 AND v.account_id = $2 AND v.policy_id IS NOT NULL ORDER BY v.occurred_at, v.id`, runID, accountID)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, v := range all {
		if seen[v.action+v.ref.ID] {
			continue
		}
		seen[v.action+v.ref.ID] = true
		if v.action == ActionBlock {
			blocked = append(blocked, v.ref)
		} else {
			flagged = append(flagged, v.ref)
		}
	}
	return blocked, flagged, nil
}

// violationCount counts the account's recorded violations of an action
// ("flag", "block"; "" for all) for a run ("" for all).
func (r repo) violationCount(ctx context.Context, accountID, runID, action string) (int, error) {
	var n int
	err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_violations WHERE account_id = $1
		AND ($2 = '' OR run_id = $2) AND ($3 = '' OR action = $3)`, accountID, runID, action).Scan(&n)
	return n, err
}

// violations lists a page of the account's recorded flags and blocks,
// newest first, with their total.
func (r repo) violations(ctx context.Context, accountID string, f GovernanceViolationFilter, offset, limit int) ([]GovernanceViolationRecord, int, error) {
	where := ` WHERE v.account_id = $1`
	args := []any{accountID}
	for _, c := range []struct{ col, val string }{{"v.action", f.Action}, {"v.agent_id", f.AgentID}, {"v.run_id", f.RunID}, {"v.policy_id", f.PolicyID}} {
		if c.val != "" {
			args = append(args, c.val)
			where += ` AND ` + c.col + ` = $` + strconv.Itoa(len(args))
		}
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_violations v`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	args = append(args, limit, offset)
	out, err := store.All(ctx, r.db.R, func(row store.Scanner) (GovernanceViolationRecord, error) {
		var (
			v                        GovernanceViolationRecord
			agent, run, step, policy sql.NullString
		)
		if err := row.Scan(&v.ID, &agent, &run, &step, &policy, &v.PolicyName, &v.Stage, &v.Action, &v.Rule, &v.Reason, &v.OccurredAt); err != nil {
			return v, err
		}
		v.AgentID, v.RunID, v.StepID, v.PolicyID = store.StringOrNil(agent), store.StringOrNil(run), store.StringOrNil(step), store.StringOrNil(policy)
		v.OccurredAt = v.OccurredAt.UTC()
		return v, nil
	}, `SELECT v.id, v.agent_id, v.run_id, v.step_id, v.policy_id, COALESCE(p.name, ''),
		v.stage, v.action, v.rule, v.reason, v.occurred_at FROM governance_violations v
		LEFT JOIN governance_policies p ON p.id = v.policy_id AND p.account_id = v.account_id`+where+
		` ORDER BY v.occurred_at DESC, v.id DESC LIMIT $`+strconv.Itoa(len(args)-1)+` OFFSET $`+strconv.Itoa(len(args)), args...)
	return out, total, err
}

// PolicySearch is how the account search (internal/search) finds
// policies: by name and description.
var PolicySearch = store.SearchTable{Table: "governance_policies", NameExpr: "name", DescExpr: "description"}
