package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// Solutions group an account's agents, knowledge bases and sources. The
// solutions table and its agent links are in agents_extras.go (imports
// link agents to solutions by name); this file is the rest.

// SolutionSummary is a solution with the number of its links.
type SolutionSummary struct {
	Solution
	Agents, KnowledgeBases, Sources int
}

// Link kinds of a solution.
const (
	LinkAgents         = "agents"
	LinkKnowledgeBases = "knowledge_bases"
	LinkSources        = "sources"
)

// linkTables maps a link kind to its table, id column and the resource
// table whose live rows it may point at.
var linkTables = map[string]struct{ table, col, resource string }{
	LinkAgents:         {"solution_agents", "agent_id", "agents"},
	LinkKnowledgeBases: {"solution_knowledge_bases", "knowledge_base_id", "knowledge_bases"},
	LinkSources:        {"solution_sources", "source_id", "sources"},
}

var solutionSorts = map[string]string{"created_at": "created_at", "updated_at": "updated_at", "name": "name"}

// ListSolutions pages through the account's solutions, filtered by a
// case-insensitive part of the name when search is set.
func (db *DB) ListSolutions(ctx context.Context, accountID, search, sort string, desc bool, offset, limit int) ([]SolutionSummary, int, error) {
	col, ok := solutionSorts[sort]
	if !ok {
		col = "created_at"
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	where, args := `WHERE s.account_id = $1`, []any{accountID}
	if search != "" {
		where += ` AND LOWER(s.name) LIKE $2 ESCAPE '\'`
		args = append(args, "%"+EscapeLike(strings.ToLower(search))+"%")
	}
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM solutions s `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	rows, err := db.R.QueryContext(ctx, `SELECT s.id, s.account_id, s.name, s.description, s.created_at, s.updated_at,
		(SELECT COUNT(*) FROM solution_agents l JOIN agents a ON a.id = l.agent_id WHERE l.solution_id = s.id AND a.deleted_at IS NULL),
		(SELECT COUNT(*) FROM solution_knowledge_bases l JOIN knowledge_bases k ON k.id = l.knowledge_base_id WHERE l.solution_id = s.id AND k.deleted_at IS NULL),
		(SELECT COUNT(*) FROM solution_sources l JOIN sources r ON r.id = l.source_id WHERE l.solution_id = s.id AND r.deleted_at IS NULL)
		FROM solutions s `+where+` ORDER BY s.`+col+dir+`, s.id`+dir+` LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []SolutionSummary
	for rows.Next() {
		var s SolutionSummary
		if err := rows.Scan(&s.ID, &s.AccountID, &s.Name, &s.Description, &s.CreatedAt, &s.UpdatedAt, &s.Agents, &s.KnowledgeBases, &s.Sources); err != nil {
			return nil, 0, err
		}
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		out = append(out, s)
	}
	return out, total, rows.Err()
}

// EscapeLike escapes the LIKE wildcards of s (the escape character is \).
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// SolutionByID returns one of the account's solutions.
func (db *DB) SolutionByID(ctx context.Context, accountID, id string) (Solution, error) {
	ss, err := db.solutions(ctx, `WHERE account_id = $1 AND id = $2`, accountID, id)
	if err != nil {
		return Solution{}, err
	}
	if len(ss) == 0 {
		return Solution{}, ErrNotFound
	}
	return ss[0], nil
}

// UpdateSolution changes the fields given.
func (db *DB) UpdateSolution(ctx context.Context, accountID, id string, name, description *string) (Solution, error) {
	s, err := db.SolutionByID(ctx, accountID, id)
	if err != nil {
		return s, err
	}
	if name != nil {
		s.Name = *name
	}
	if description != nil {
		s.Description = *description
	}
	s.UpdatedAt = Now()
	res, err := db.W.ExecContext(ctx, `UPDATE solutions SET name = $1, description = $2, updated_at = $3 WHERE account_id = $4 AND id = $5`,
		s.Name, s.Description, s.UpdatedAt, accountID, id)
	if err != nil {
		return s, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return s, ErrNotFound
	}
	return s, nil
}

// DeleteSolution removes a solution and its links (the cascade), never the
// linked resources.
func (db *DB) DeleteSolution(ctx context.Context, accountID, id string) error {
	res, err := db.W.ExecContext(ctx, `DELETE FROM solutions WHERE account_id = $1 AND id = $2`, accountID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ErrLinkTarget means a link names a resource the account does not have.
var ErrLinkTarget = errors.New("resource not found")

// MissingResources returns the ids among ids that are not live resources
// of the kind in the account.
func (db *DB) MissingResources(ctx context.Context, accountID, kind string, ids []string) ([]string, error) {
	lt, ok := linkTables[kind]
	if !ok {
		return nil, errors.New("unknown link kind " + kind)
	}
	var missing []string
	for _, id := range ids {
		var n int
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+lt.resource+` WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`,
			accountID, id).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// LinkSolution links the account's resources of a kind to a solution;
// links that exist already are left as they are. Every id must name a live
// resource of the account (ErrLinkTarget otherwise, and nothing is linked).
func (db *DB) LinkSolution(ctx context.Context, accountID, solutionID, kind string, ids []string) error {
	if _, err := db.SolutionByID(ctx, accountID, solutionID); err != nil {
		return err
	}
	missing, err := db.MissingResources(ctx, accountID, kind, ids)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return ErrLinkTarget
	}
	lt := linkTables[kind]
	now := Now()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+lt.table+` (solution_id, `+lt.col+`, account_id, created_at)
				VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, solutionID, id, accountID, now); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE solutions SET updated_at = $1 WHERE id = $2 AND account_id = $3`, now, solutionID, accountID)
		return err
	})
}

// UnlinkSolution removes links; ids that are not linked are ignored.
func (db *DB) UnlinkSolution(ctx context.Context, accountID, solutionID, kind string, ids []string) error {
	if _, err := db.SolutionByID(ctx, accountID, solutionID); err != nil {
		return err
	}
	lt, ok := linkTables[kind]
	if !ok {
		return errors.New("unknown link kind " + kind)
	}
	now := Now()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+lt.table+` WHERE solution_id = $1 AND `+lt.col+` = $2 AND account_id = $3`,
				solutionID, id, accountID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE solutions SET updated_at = $1 WHERE id = $2 AND account_id = $3`, now, solutionID, accountID)
		return err
	})
}

// LinkedAgent is an agent of a solution with the knowledge base its
// trigger watches, if any.
type LinkedAgent struct {
	ID, Name         string
	KnowledgeBaseIDs []string
}

// LinkedKnowledgeBase is a knowledge base of a solution with its sources.
type LinkedKnowledgeBase struct {
	ID, Name  string
	SourceIDs []string
}

// LinkedSource is a source of a solution.
type LinkedSource struct{ ID, Name string }

// SolutionLinks lists a solution's live linked resources, by name.
func (db *DB) SolutionLinks(ctx context.Context, accountID, solutionID string) ([]LinkedAgent, []LinkedKnowledgeBase, []LinkedSource, error) {
	agents := []LinkedAgent{}
	rows, err := db.R.QueryContext(ctx, `SELECT a.id, a.name, COALESCE(t.config, '') FROM solution_agents l
		JOIN agents a ON a.id = l.agent_id AND a.account_id = l.account_id
		LEFT JOIN agent_triggers t ON t.agent_id = a.id
		WHERE l.solution_id = $1 AND l.account_id = $2 AND a.deleted_at IS NULL ORDER BY a.name, a.id`, solutionID, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var a LinkedAgent
		var cfg string
		if err := rows.Scan(&a.ID, &a.Name, &cfg); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		a.KnowledgeBaseIDs = []string{}
		var c struct {
			KnowledgeBaseID string `json:"knowledge_base_id"`
		}
		if json.Unmarshal([]byte(cfg), &c) == nil && c.KnowledgeBaseID != "" {
			a.KnowledgeBaseIDs = append(a.KnowledgeBaseIDs, c.KnowledgeBaseID)
		}
		agents = append(agents, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	kbs := []LinkedKnowledgeBase{}
	rows, err = db.R.QueryContext(ctx, `SELECT k.id, k.name FROM solution_knowledge_bases l
		JOIN knowledge_bases k ON k.id = l.knowledge_base_id AND k.account_id = l.account_id
		WHERE l.solution_id = $1 AND l.account_id = $2 AND k.deleted_at IS NULL ORDER BY k.name, k.id`, solutionID, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var k LinkedKnowledgeBase
		if err := rows.Scan(&k.ID, &k.Name); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		kbs = append(kbs, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	kbIDs := make([]string, len(kbs))
	for i := range kbs {
		kbIDs[i] = kbs[i].ID
	}
	kbSources, err := db.kbSourcesOf(ctx, kbIDs)
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range kbs {
		kbs[i].SourceIDs = kbSources[kbs[i].ID]
	}
	srcs := []LinkedSource{}
	rows, err = db.R.QueryContext(ctx, `SELECT r.id, r.name FROM solution_sources l
		JOIN sources r ON r.id = l.source_id AND r.account_id = l.account_id
		WHERE l.solution_id = $1 AND l.account_id = $2 AND r.deleted_at IS NULL ORDER BY r.name, r.id`, solutionID, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s LinkedSource
		if err := rows.Scan(&s.ID, &s.Name); err != nil {
			return nil, nil, nil, err
		}
		srcs = append(srcs, s)
	}
	return agents, kbs, srcs, rows.Err()
}

// AssistantConversation is one turn of a planning assistant (or a turn
// recorded by hand on a solution).
type AssistantConversation struct {
	ID, AccountID string
	SolutionID    *string
	UserID, Kind  string
	UserInput     string
	AIResponse    *string
	Actions       json.RawMessage // nil: none
	Accepted      *bool
	Results       json.RawMessage
	CreatedAt     time.Time
	DecidedAt     *time.Time
}

const convColumns = `id, account_id, solution_id, user_id, kind, user_input, ai_response, actions, accepted, results, created_at, decided_at`

func scanAssistantConversation(r rowScanner) (AssistantConversation, error) {
	var (
		c                    AssistantConversation
		sol, resp, acts, res sql.NullString
		accepted             sql.NullBool
		decided              sql.NullTime
	)
	err := r.Scan(&c.ID, &c.AccountID, &sol, &c.UserID, &c.Kind, &c.UserInput, &resp, &acts, &accepted, &res, &c.CreatedAt, &decided)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	c.SolutionID, c.AIResponse = StringOrNil(sol), StringOrNil(resp)
	if acts.Valid {
		c.Actions = json.RawMessage(acts.String)
	}
	if res.Valid {
		c.Results = json.RawMessage(res.String)
	}
	if accepted.Valid {
		c.Accepted = &accepted.Bool
	}
	if decided.Valid {
		t := decided.Time.UTC()
		c.DecidedAt = &t
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return c, err
}

// CreateAssistantConversation stores a turn.
func (db *DB) CreateAssistantConversation(ctx context.Context, c AssistantConversation) (AssistantConversation, error) {
	c.ID, c.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO assistant_conversations (`+convColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL)`, c.ID, c.AccountID, c.SolutionID, c.UserID, c.Kind, c.UserInput,
		c.AIResponse, nullableJSON(c.Actions), c.Accepted, nullableJSON(c.Results), c.CreatedAt)
	return c, err
}

// AssistantConversationByID returns one turn of the account; solutionID
// "" asks for a standalone turn, else the turn must belong to it.
func (db *DB) AssistantConversationByID(ctx context.Context, accountID, solutionID, id string) (AssistantConversation, error) {
	q := `SELECT ` + convColumns + ` FROM assistant_conversations WHERE account_id = $1 AND id = $2 AND `
	args := []any{accountID, id}
	if solutionID == "" {
		q += `solution_id IS NULL`
	} else {
		q += `solution_id = $3`
		args = append(args, solutionID)
	}
	return scanAssistantConversation(db.R.QueryRowContext(ctx, q, args...))
}

// AssistantConversations lists a solution's latest limit turns (created at
// or after since when it is set), oldest first.
func (db *DB) AssistantConversations(ctx context.Context, accountID, solutionID string, since *time.Time, limit int) ([]AssistantConversation, error) {
	q := `SELECT ` + convColumns + ` FROM assistant_conversations WHERE account_id = $1 AND solution_id = $2`
	args := []any{accountID, solutionID}
	if since != nil {
		q += ` AND created_at >= $3`
		args = append(args, since.UTC())
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ` + itoa(limit)
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AssistantConversation{}
	for rows.Next() {
		c, err := scanAssistantConversation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	slices.Reverse(out)
	return out, rows.Err()
}

// DecideAssistantConversation records accepted or declined. With pending
// set it only decides an undecided turn (ErrConflict otherwise), so a plan
// is never executed twice; without it, it overwrites (marking by hand).
func (db *DB) DecideAssistantConversation(ctx context.Context, accountID, id string, accepted, pending bool) error {
	q := `UPDATE assistant_conversations SET accepted = $1, decided_at = $2 WHERE account_id = $3 AND id = $4`
	if pending {
		q += ` AND accepted IS NULL`
	}
	res, err := db.W.ExecContext(ctx, q, accepted, Now(), accountID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if pending {
			return ErrConflict
		}
		return ErrNotFound
	}
	return nil
}

// SetAssistantConversationResults stores what accepting a plan did, and
// the solution it was linked to.
func (db *DB) SetAssistantConversationResults(ctx context.Context, accountID, id string, results json.RawMessage) error {
	_, err := db.W.ExecContext(ctx, `UPDATE assistant_conversations SET results = $1 WHERE account_id = $2 AND id = $3`,
		string(results), accountID, id)
	return err
}

// AgentAssistantTurn is one turn of the agent assistant.
type AgentAssistantTurn struct {
	ID, AccountID, AgentID string
	StepType               string
	StepID                 *string
	UserInput              string
	AINote                 *string
	ResultingConfig        json.RawMessage
	Accepted               *bool
	CreatedAt              time.Time
}

// CreateAgentAssistantTurn stores a turn.
func (db *DB) CreateAgentAssistantTurn(ctx context.Context, t AgentAssistantTurn) (AgentAssistantTurn, error) {
	t.ID, t.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO agent_assistant_turns (id, account_id, agent_id, step_type, step_id, user_input,
		ai_note, resulting_config, accepted, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9)`,
		t.ID, t.AccountID, t.AgentID, t.StepType, t.StepID, t.UserInput, t.AINote, nullableJSON(t.ResultingConfig), t.CreatedAt)
	return t, err
}

// AgentAssistantTurns pages through an agent's turns of one step type (and
// step id, when set): the most recent limit after skipping offset, returned
// oldest first, with the total.
func (db *DB) AgentAssistantTurns(ctx context.Context, accountID, agentID, stepType string, stepID *string, limit, offset int) ([]AgentAssistantTurn, int, error) {
	where := `WHERE account_id = $1 AND agent_id = $2 AND step_type = $3`
	args := []any{accountID, agentID, stepType}
	if stepID != nil {
		where += ` AND step_id = $4`
		args = append(args, *stepID)
	}
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_assistant_turns `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT id, account_id, agent_id, step_type, step_id, user_input, ai_note, resulting_config,
		accepted, created_at FROM agent_assistant_turns `+where+` ORDER BY created_at DESC, id DESC LIMIT `+itoa(limit)+` OFFSET `+itoa(offset), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []AgentAssistantTurn{}
	for rows.Next() {
		var (
			t            AgentAssistantTurn
			sid, note, c sql.NullString
			acc          sql.NullBool
		)
		if err := rows.Scan(&t.ID, &t.AccountID, &t.AgentID, &t.StepType, &sid, &t.UserInput, &note, &c, &acc, &t.CreatedAt); err != nil {
			return nil, 0, err
		}
		t.StepID, t.AINote = StringOrNil(sid), StringOrNil(note)
		if c.Valid {
			t.ResultingConfig = json.RawMessage(c.String)
		}
		if acc.Valid {
			t.Accepted = &acc.Bool
		}
		t.CreatedAt = t.CreatedAt.UTC()
		out = append(out, t)
	}
	// Newest first from the query; the contract lists oldest first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, total, rows.Err()
}

// MarkAgentAssistantTurn records accepted or declined on an agent's turn.
func (db *DB) MarkAgentAssistantTurn(ctx context.Context, accountID, agentID, id string, accepted bool) error {
	res, err := db.W.ExecContext(ctx, `UPDATE agent_assistant_turns SET accepted = $1 WHERE account_id = $2 AND agent_id = $3 AND id = $4`,
		accepted, accountID, agentID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// AssistantFeedback is a thumbs up or down on an assistant's answer.
type AssistantFeedback struct {
	ID, AccountID, UserID string
	Feature, Rating       string
	Comment               *string
	ConversationID        *string
	AgentConversationID   *string
	PromptCallID          *string
	Context               json.RawMessage
	Flagged               bool
	FlagReason            *string
	CreatedAt             time.Time
}

// CreateAssistantFeedback stores feedback.
func (db *DB) CreateAssistantFeedback(ctx context.Context, f AssistantFeedback) (AssistantFeedback, error) {
	f.ID, f.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO assistant_feedback (id, account_id, user_id, feature, rating, comment, conversation_id,
		agent_conversation_id, prompt_call_id, context, flagged, flag_reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, f.ID, f.AccountID, f.UserID, f.Feature, f.Rating, f.Comment,
		f.ConversationID, f.AgentConversationID, f.PromptCallID, nullableJSON(f.Context), f.Flagged, f.FlagReason, f.CreatedAt)
	return f, err
}

// FlaggedAssistantFeedback lists flagged feedback of every account, newest
// first: what operators review. It is an operator's query (agentry admin),
// never reachable from a tenant's request.
func (db *DB) FlaggedAssistantFeedback(ctx context.Context, limit int) ([]AssistantFeedback, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT id, account_id, user_id, feature, rating, comment, flag_reason, created_at
		FROM assistant_feedback WHERE flagged ORDER BY created_at DESC, id DESC LIMIT `+itoa(limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AssistantFeedback
	for rows.Next() {
		var (
			f    AssistantFeedback
			c, r sql.NullString
		)
		if err := rows.Scan(&f.ID, &f.AccountID, &f.UserID, &f.Feature, &f.Rating, &c, &r, &f.CreatedAt); err != nil {
			return nil, err
		}
		f.Comment, f.FlagReason, f.Flagged, f.CreatedAt = StringOrNil(c), StringOrNil(r), true, f.CreatedAt.UTC()
		out = append(out, f)
	}
	return out, rows.Err()
}
