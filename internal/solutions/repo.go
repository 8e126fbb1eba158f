package solutions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/knowledgerow"
	"github.com/agentry/agentry/internal/solutions/solutionrow"
	"github.com/agentry/agentry/internal/store"
)

// The solutions area keeps its own persistence (issue 31's vertical
// slices): the tables solutions, solution_agents, solution_knowledge_bases,
// solution_sources, assistant_conversations, agent_assistant_turns and
// assistant_feedback are read and written here and in the area's leaf
// package, solutionrow, through which the agents area's import links an
// agent to solutions in its own transaction and its export names them.
// The resources a solution links are other areas' tables: whether an
// agent is live, its name and trigger are asked of the agents area's
// leaf package (agentrow), and the same of knowledge bases and sources of
// the knowledge area's (knowledgerow).

// Record is a solution as stored, without its links: the row of the
// area's leaf package, solutionrow, which the agents area reads too.
type Record = solutionrow.Solution

// SolutionSummary is a solution with the number of its links.
type SolutionSummary struct {
	Record
	Agents, KnowledgeBases, Sources int
}

// Link kinds of a solution.
const (
	LinkAgents         = "agents"
	LinkKnowledgeBases = "knowledge_bases"
	LinkSources        = "sources"
)

// linkQueries are the statements of one link kind. Each is a literal (no
// table name is spliced into SQL), so what a kind may touch is read here
// or in the owning area's leaf package.
type linkQueries struct {
	live   func(ctx context.Context, q store.Querier, accountID, id string) (bool, error)          // a live resource of the account?
	named  func(ctx context.Context, q store.Querier, accountID, lowerName string) (string, error) // the oldest live one by lower-case name
	insert string                                                                                  // links: $1 solution, $2 resource, $3 account, $4 time
	remove string                                                                                  // unlinks: $1 solution, $2 resource, $3 account
}

var linkSQL = map[string]linkQueries{
	LinkAgents: {
		// The agents are the agents area's table: it answers (agentrow).
		live:  agentrow.Live,
		named: agentrow.LiveNamed,
		insert: `INSERT INTO solution_agents (solution_id, agent_id, account_id, created_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		remove: `DELETE FROM solution_agents WHERE solution_id = $1 AND agent_id = $2 AND account_id = $3`,
	},
	LinkKnowledgeBases: {
		// The knowledge bases and sources are the knowledge area's
		// tables: it answers (knowledgerow).
		live:  knowledgerow.LiveBase,
		named: knowledgerow.LiveBaseNamed,
		insert: `INSERT INTO solution_knowledge_bases (solution_id, knowledge_base_id, account_id, created_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		remove: `DELETE FROM solution_knowledge_bases WHERE solution_id = $1 AND knowledge_base_id = $2 AND account_id = $3`,
	},
	LinkSources: {
		live:  knowledgerow.LiveSource,
		named: knowledgerow.LiveSourceNamed,
		insert: `INSERT INTO solution_sources (solution_id, source_id, account_id, created_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		remove: `DELETE FROM solution_sources WHERE solution_id = $1 AND source_id = $2 AND account_id = $3`,
	},
}

// errLinkTarget means a link names a resource the account does not have.
var errLinkTarget = errors.New("resource not found")

func errUnknownKind(kind string) error { return errors.New("unknown link kind " + kind) }

// repo is the area's SQL.
type repo struct{ db *store.DB }

var solutionSorts = map[string]string{"created_at": "created_at", "updated_at": "updated_at", "name": "name"}

// list pages through the account's solutions, filtered by a
// case-insensitive part of the name when search is set.
func (r repo) list(ctx context.Context, accountID, search, sort string, desc bool, offset, limit int) ([]SolutionSummary, int, error) {
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
		args = append(args, "%"+store.EscapeLike(strings.ToLower(search))+"%")
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM solutions s `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	n := len(args)
	out, err := store.All(ctx, r.db.R, func(row store.Scanner) (SolutionSummary, error) {
		var s SolutionSummary
		var err error
		s.Record, err = solutionrow.Scan(row)
		return s, err
	}, `SELECT `+solutionrow.Columns+` FROM solutions s `+where+` ORDER BY s.`+col+dir+`, s.id`+dir+
		` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	if err := r.countLiveLinks(ctx, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// countLiveLinks sets the number of live linked agents, knowledge bases
// and sources of each of a page of solutions: the links are this area's,
// which resources are live the agents' (agentrow) and the knowledge
// area's (knowledgerow).
func (r repo) countLiveLinks(ctx context.Context, page []SolutionSummary) error {
	if len(page) == 0 {
		return nil
	}
	ids := make([]any, len(page))
	for i := range page {
		ids[i] = page[i].ID
	}
	in := `IN (` + store.Placeholders(1, len(ids)) + `)`
	for _, k := range []struct {
		query string
		live  func(ctx context.Context, q store.Querier, ids []string) (map[string]bool, error)
		count func(s *SolutionSummary) *int
	}{
		{`SELECT solution_id, agent_id FROM solution_agents WHERE solution_id ` + in, agentrow.LiveAmong,
			func(s *SolutionSummary) *int { return &s.Agents }},
		{`SELECT solution_id, knowledge_base_id FROM solution_knowledge_bases WHERE solution_id ` + in, knowledgerow.LiveBasesAmong,
			func(s *SolutionSummary) *int { return &s.KnowledgeBases }},
		{`SELECT solution_id, source_id FROM solution_sources WHERE solution_id ` + in, knowledgerow.LiveSourcesAmong,
			func(s *SolutionSummary) *int { return &s.Sources }},
	} {
		links, err := store.All(ctx, r.db.R, func(row store.Scanner) ([2]string, error) {
			var l [2]string
			return l, row.Scan(&l[0], &l[1])
		}, k.query, ids...)
		if err != nil {
			return err
		}
		linked := make([]string, len(links))
		for i, l := range links {
			linked[i] = l[1]
		}
		live, err := k.live(ctx, r.db.R, linked)
		if err != nil {
			return err
		}
		n := map[string]int{}
		for _, l := range links {
			if live[l[1]] {
				n[l[0]]++
			}
		}
		for i := range page {
			*k.count(&page[i]) = n[page[i].ID]
		}
	}
	return nil
}

// create adds a solution to an account; store.ErrNotFound for an unknown
// account.
func (r repo) create(ctx context.Context, accountID, name, description string) (Record, error) {
	now := store.Now()
	s := Record{ID: store.NewID(), AccountID: accountID, Name: name, Description: description, CreatedAt: now, UpdatedAt: now}
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO solutions (id, account_id, name, description, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $5)`, s.ID, s.AccountID, s.Name, s.Description, now)
	if store.IsForeignKeyViolation(err) {
		return Record{}, store.ErrNotFound
	}
	return s, err
}

// byID returns one of the account's solutions.
func (r repo) byID(ctx context.Context, accountID, id string) (Record, error) {
	return store.One(ctx, r.db.R, solutionrow.Scan, `SELECT `+solutionrow.Columns+` FROM solutions WHERE account_id = $1 AND id = $2`, accountID, id)
}

// update changes the fields given.
func (r repo) update(ctx context.Context, accountID, id string, name, description *string) (Record, error) {
	s, err := r.byID(ctx, accountID, id)
	if err != nil {
		return s, err
	}
	if name != nil {
		s.Name = *name
	}
	if description != nil {
		s.Description = *description
	}
	s.UpdatedAt = store.Now()
	return s, store.Affected(ctx, r.db.W, `UPDATE solutions SET name = $1, description = $2, updated_at = $3 WHERE account_id = $4 AND id = $5`,
		s.Name, s.Description, s.UpdatedAt, accountID, id)
}

// remove deletes a solution and its links (the cascade), never the linked
// resources.
func (r repo) remove(ctx context.Context, accountID, id string) error {
	return store.Affected(ctx, r.db.W, `DELETE FROM solutions WHERE account_id = $1 AND id = $2`, accountID, id)
}

// missing returns the ids among ids that are not live resources of the
// kind in the account.
func (r repo) missing(ctx context.Context, accountID, kind string, ids []string) ([]string, error) {
	q, ok := linkSQL[kind]
	if !ok {
		return nil, errUnknownKind(kind)
	}
	var missing []string
	for _, id := range ids {
		live, err := q.live(ctx, r.db.R, accountID, id)
		if err != nil {
			return nil, err
		}
		if !live {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// idNamed finds the account's live resource of a kind by name (any case);
// store.ErrNotFound when there is none.
func (r repo) idNamed(ctx context.Context, accountID, kind, name string) (string, error) {
	q, ok := linkSQL[kind]
	if !ok {
		return "", errUnknownKind(kind)
	}
	return q.named(ctx, r.db.R, accountID, strings.ToLower(strings.TrimSpace(name)))
}

// link links the account's resources of a kind to a solution; links that
// exist already are left as they are. Every id must name a live resource
// of the account (errLinkTarget otherwise, and nothing is linked).
func (r repo) link(ctx context.Context, accountID, solutionID, kind string, ids []string) error {
	if _, err := r.byID(ctx, accountID, solutionID); err != nil {
		return err
	}
	missing, err := r.missing(ctx, accountID, kind, ids)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return errLinkTarget
	}
	return r.relink(ctx, accountID, solutionID, ids, linkSQL[kind].insert, true)
}

// unlink removes links; ids that are not linked are ignored.
func (r repo) unlink(ctx context.Context, accountID, solutionID, kind string, ids []string) error {
	if _, err := r.byID(ctx, accountID, solutionID); err != nil {
		return err
	}
	q, ok := linkSQL[kind]
	if !ok {
		return errUnknownKind(kind)
	}
	return r.relink(ctx, accountID, solutionID, ids, q.remove, false)
}

// relink runs a link kind's insert (stamped, taking the time as its
// fourth argument) or remove for each id and touches the solution, in one
// transaction.
func (r repo) relink(ctx context.Context, accountID, solutionID string, ids []string, stmt string, stamped bool) error {
	now := store.Now()
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			args := []any{solutionID, id, accountID}
			if stamped {
				args = append(args, now)
			}
			if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
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

// linkedAgents lists a solution's live linked agents, by name, with the
// knowledge base each one's trigger watches. The links are this area's,
// the agents and their triggers the agents area's (agentrow).
func (r repo) linkedAgents(ctx context.Context, accountID, solutionID string) ([]LinkedAgent, error) {
	ids, err := store.All(ctx, r.db.R, store.ScanString, `SELECT agent_id FROM solution_agents WHERE solution_id = $1 AND account_id = $2`,
		solutionID, accountID)
	if err != nil {
		return nil, err
	}
	briefs, err := agentrow.LiveBriefsByName(ctx, r.db.R, accountID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]LinkedAgent, len(briefs))
	for i, b := range briefs {
		a := LinkedAgent{ID: b.ID, Name: b.Name, KnowledgeBaseIDs: []string{}}
		var c struct {
			KnowledgeBaseID string `json:"knowledge_base_id"`
		}
		if json.Unmarshal([]byte(b.TriggerConfig), &c) == nil && c.KnowledgeBaseID != "" {
			a.KnowledgeBaseIDs = append(a.KnowledgeBaseIDs, c.KnowledgeBaseID)
		}
		out[i] = a
	}
	return out, nil
}

// links lists a solution's live linked resources, by name.
func (r repo) links(ctx context.Context, accountID, solutionID string) ([]LinkedAgent, []LinkedKnowledgeBase, []LinkedSource, error) {
	agents, err := r.linkedAgents(ctx, accountID, solutionID)
	if err != nil {
		return nil, nil, nil, err
	}
	// The linked knowledge bases and sources are the knowledge area's
	// rows: it answers which are live and their names (knowledgerow).
	kbIDs, err := store.All(ctx, r.db.R, store.ScanString, `SELECT knowledge_base_id FROM solution_knowledge_bases
		WHERE solution_id = $1 AND account_id = $2`, solutionID, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	liveKBs, err := knowledgerow.LiveBasesByName(ctx, r.db.R, accountID, kbIDs)
	if err != nil {
		return nil, nil, nil, err
	}
	kbs := make([]LinkedKnowledgeBase, len(liveKBs))
	kbIDs = make([]string, len(liveKBs))
	for i, k := range liveKBs {
		kbs[i] = LinkedKnowledgeBase{ID: k.ID, Name: k.Name}
		kbIDs[i] = k.ID
	}
	kbSources, err := knowledge.KnowledgeBaseSources(ctx, r.db, kbIDs)
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range kbs {
		kbs[i].SourceIDs = kbSources[kbs[i].ID]
	}
	srcIDs, err := store.All(ctx, r.db.R, store.ScanString, `SELECT source_id FROM solution_sources
		WHERE solution_id = $1 AND account_id = $2`, solutionID, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	liveSrcs, err := knowledgerow.LiveSourcesByName(ctx, r.db.R, accountID, srcIDs)
	if err != nil {
		return nil, nil, nil, err
	}
	srcs := make([]LinkedSource, len(liveSrcs))
	for i, l := range liveSrcs {
		srcs[i] = LinkedSource{ID: l.ID, Name: l.Name}
	}
	return agents, kbs, srcs, nil
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

func scanConversation(r store.Scanner) (AssistantConversation, error) {
	var (
		c                    AssistantConversation
		sol, resp, acts, res sql.NullString
		accepted             sql.NullBool
		decided              sql.NullTime
	)
	if err := r.Scan(&c.ID, &c.AccountID, &sol, &c.UserID, &c.Kind, &c.UserInput, &resp, &acts, &accepted, &res, &c.CreatedAt, &decided); err != nil {
		return c, err
	}
	c.SolutionID, c.AIResponse = store.StringOrNil(sol), store.StringOrNil(resp)
	if acts.Valid {
		c.Actions = json.RawMessage(acts.String)
	}
	if res.Valid {
		c.Results = json.RawMessage(res.String)
	}
	if accepted.Valid {
		c.Accepted = &accepted.Bool
	}
	c.DecidedAt = store.TimeOrNil(decided)
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}

// createConversation stores a turn.
func (r repo) createConversation(ctx context.Context, c AssistantConversation) (AssistantConversation, error) {
	c.ID, c.CreatedAt = store.NewID(), store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO assistant_conversations (`+convColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL)`, c.ID, c.AccountID, c.SolutionID, c.UserID, c.Kind, c.UserInput,
		c.AIResponse, store.NullJSON(c.Actions), c.Accepted, store.NullJSON(c.Results), c.CreatedAt)
	return c, err
}

// conversation returns one turn of the account; solutionID "" asks for a
// standalone turn, else the turn must belong to it.
func (r repo) conversation(ctx context.Context, accountID, solutionID, id string) (AssistantConversation, error) {
	if solutionID == "" {
		return store.One(ctx, r.db.R, scanConversation, `SELECT `+convColumns+` FROM assistant_conversations
			WHERE account_id = $1 AND id = $2 AND solution_id IS NULL`, accountID, id)
	}
	return store.One(ctx, r.db.R, scanConversation, `SELECT `+convColumns+` FROM assistant_conversations
		WHERE account_id = $1 AND id = $2 AND solution_id = $3`, accountID, id, solutionID)
}

// conversations lists a solution's latest limit turns (created at or after
// since when it is set), oldest first.
func (r repo) conversations(ctx context.Context, accountID, solutionID string, since *time.Time, limit int) ([]AssistantConversation, error) {
	q := `SELECT ` + convColumns + ` FROM assistant_conversations WHERE account_id = $1 AND solution_id = $2`
	args := []any{accountID, solutionID}
	if since != nil {
		q += ` AND created_at >= $3`
		args = append(args, since.UTC())
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ` + strconv.Itoa(limit)
	out, err := store.All(ctx, r.db.R, scanConversation, q, args...)
	slices.Reverse(out)
	return out, err
}

// decideConversation records accepted or declined. With pending set it
// only decides an undecided turn (store.ErrConflict otherwise), so a plan
// is never executed twice; without it, it overwrites (marking by hand).
func (r repo) decideConversation(ctx context.Context, accountID, id string, accepted, pending bool) error {
	q := `UPDATE assistant_conversations SET accepted = $1, decided_at = $2 WHERE account_id = $3 AND id = $4`
	if pending {
		q += ` AND accepted IS NULL`
	}
	err := store.Affected(ctx, r.db.W, q, accepted, store.Now(), accountID, id)
	if pending && errors.Is(err, store.ErrNotFound) {
		return store.ErrConflict
	}
	return err
}

// setConversationResults stores what accepting a plan did, and the
// solution it was linked to.
func (r repo) setConversationResults(ctx context.Context, accountID, id string, results json.RawMessage) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE assistant_conversations SET results = $1 WHERE account_id = $2 AND id = $3`,
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

// createAgentTurn stores a turn.
func (r repo) createAgentTurn(ctx context.Context, t AgentAssistantTurn) (AgentAssistantTurn, error) {
	t.ID, t.CreatedAt = store.NewID(), store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO agent_assistant_turns (id, account_id, agent_id, step_type, step_id, user_input,
		ai_note, resulting_config, accepted, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9)`,
		t.ID, t.AccountID, t.AgentID, t.StepType, t.StepID, t.UserInput, t.AINote, store.NullJSON(t.ResultingConfig), t.CreatedAt)
	return t, err
}

// agentTurns pages through an agent's turns of one step type (and step
// id, when set): the most recent limit after skipping offset, returned
// oldest first, with the total.
func (r repo) agentTurns(ctx context.Context, accountID, agentID, stepType string, stepID *string, limit, offset int) ([]AgentAssistantTurn, int, error) {
	where := `WHERE account_id = $1 AND agent_id = $2 AND step_type = $3`
	args := []any{accountID, agentID, stepType}
	if stepID != nil {
		where += ` AND step_id = $4`
		args = append(args, *stepID)
	}
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_assistant_turns `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, func(row store.Scanner) (AgentAssistantTurn, error) {
		var (
			t            AgentAssistantTurn
			sid, note, c sql.NullString
			acc          sql.NullBool
		)
		if err := row.Scan(&t.ID, &t.AccountID, &t.AgentID, &t.StepType, &sid, &t.UserInput, &note, &c, &acc, &t.CreatedAt); err != nil {
			return t, err
		}
		t.StepID, t.AINote = store.StringOrNil(sid), store.StringOrNil(note)
		if c.Valid {
			t.ResultingConfig = json.RawMessage(c.String)
		}
		if acc.Valid {
			t.Accepted = &acc.Bool
		}
		t.CreatedAt = t.CreatedAt.UTC()
		return t, nil
	}, `SELECT id, account_id, agent_id, step_type, step_id, user_input, ai_note, resulting_config,
		accepted, created_at FROM agent_assistant_turns `+where+` ORDER BY created_at DESC, id DESC LIMIT `+strconv.Itoa(limit)+` OFFSET `+strconv.Itoa(offset), args...)
	if err != nil {
		return nil, 0, err
	}
	// Newest first from the query; the contract lists oldest first.
	slices.Reverse(out)
	return out, total, nil
}

// markAgentTurn records accepted or declined on an agent's turn.
func (r repo) markAgentTurn(ctx context.Context, accountID, agentID, id string, accepted bool) error {
	return store.Affected(ctx, r.db.W, `UPDATE agent_assistant_turns SET accepted = $1 WHERE account_id = $2 AND agent_id = $3 AND id = $4`,
		accepted, accountID, agentID, id)
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

// createFeedback stores feedback.
func (r repo) createFeedback(ctx context.Context, f AssistantFeedback) (AssistantFeedback, error) {
	f.ID, f.CreatedAt = store.NewID(), store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO assistant_feedback (id, account_id, user_id, feature, rating, comment, conversation_id,
		agent_conversation_id, prompt_call_id, context, flagged, flag_reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, f.ID, f.AccountID, f.UserID, f.Feature, f.Rating, f.Comment,
		f.ConversationID, f.AgentConversationID, f.PromptCallID, store.NullJSON(f.Context), f.Flagged, f.FlagReason, f.CreatedAt)
	return f, err
}

// flaggedFeedback lists flagged feedback of every account, newest first:
// what operators review. It is an operator's query (agentry admin), never
// reachable from a tenant's request.
func (r repo) flaggedFeedback(ctx context.Context, limit int) ([]AssistantFeedback, error) {
	return store.All(ctx, r.db.R, func(row store.Scanner) (AssistantFeedback, error) {
		var (
			f      AssistantFeedback
			c, why sql.NullString
		)
		if err := row.Scan(&f.ID, &f.AccountID, &f.UserID, &f.Feature, &f.Rating, &c, &why, &f.CreatedAt); err != nil {
			return f, err
		}
		f.Comment, f.FlagReason, f.Flagged, f.CreatedAt = store.StringOrNil(c), store.StringOrNil(why), true, f.CreatedAt.UTC()
		return f, nil
	}, `SELECT id, account_id, user_id, feature, rating, comment, flag_reason, created_at
		FROM assistant_feedback WHERE flagged ORDER BY created_at DESC, id DESC LIMIT `+strconv.Itoa(limit))
}
