package mcpexpose

// The MCP-exposure area keeps its own persistence (issue 31's vertical
// slices): the table agent_mcp_tools is read and written only here. The
// agents it names (their names, triggers and state) are the agents area's
// table, read through that area's leaf package, agentrow.

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// exposedAgent is an agent an account exposes as a tool of its MCP server.
type exposedAgent struct {
	AgentID     string
	AccountID   string
	ToolName    string
	Description *string
	CreatedAt   time.Time
	UpdatedAt   time.Time

	// Of the agent, for listings: its name, description and trigger.
	AgentName        string
	AgentDescription *string
	TriggerType      string
}

// repo is the area's SQL.
type repo struct{ db *store.DB }

// put exposes a live agent of the account as a tool, or renames it. A name
// another agent of the account holds is store.ErrConflict; an agent that is
// not the account's is store.ErrNotFound.
func (r repo) put(ctx context.Context, accountID, agentID, toolName string, description *string) error {
	now := store.Now()
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		// The agents are the agents area's table: it answers whether one is
		// live (agentrow), in this transaction.
		live, err := agentrow.Live(ctx, tx, accountID, agentID)
		if err != nil {
			return err
		}
		if !live {
			return store.ErrNotFound
		}
		holders, err := store.All(ctx, tx, store.ScanString, `SELECT agent_id FROM agent_mcp_tools
			WHERE account_id = $1 AND tool_name = $2 AND agent_id <> $3`, accountID, toolName, agentID)
		if err != nil {
			return err
		}
		liveHolders, err := agentrow.LiveAmong(ctx, tx, holders)
		if err != nil {
			return err
		}
		if len(liveHolders) > 0 {
			return store.ErrConflict
		}
		// A deleted agent's row may hold the name still: it gives way.
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_mcp_tools WHERE account_id = $1 AND tool_name = $2 AND agent_id <> $3`,
			accountID, toolName, agentID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO agent_mcp_tools (agent_id, account_id, tool_name, description, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $5)
			ON CONFLICT (agent_id) DO UPDATE SET tool_name = excluded.tool_name, description = excluded.description, updated_at = excluded.updated_at`,
			agentID, accountID, toolName, description, now)
		if err != nil && strings.Contains(strings.ToLower(err.Error()), "unique") {
			return store.ErrConflict // a concurrent write took the name
		}
		return err
	})
}

// remove stops exposing an agent (nothing when it was not).
func (r repo) remove(ctx context.Context, accountID, agentID string) error {
	_, err := r.db.W.ExecContext(ctx, `DELETE FROM agent_mcp_tools WHERE agent_id = $1 AND account_id = $2`, agentID, accountID)
	return err
}

const agentMCPToolSelect = `SELECT agent_id, account_id, tool_name, description, created_at, updated_at FROM agent_mcp_tools`

func scanExposed(row store.Scanner) (exposedAgent, error) {
	var t exposedAgent
	var desc sql.NullString
	err := row.Scan(&t.AgentID, &t.AccountID, &t.ToolName, &desc, &t.CreatedAt, &t.UpdatedAt)
	t.Description = store.StringOrNil(desc)
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, err
}

// withAgents keeps the exposed agents whose agent keep(s), filling in each
// one's name, description and trigger type. The agents are the agents
// area's table, read through agentrow on q.
func withAgents(ctx context.Context, q store.Querier, accountID string, ts []exposedAgent, keep func(agentrow.Brief) bool) ([]exposedAgent, error) {
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.AgentID
	}
	briefs, err := agentrow.Briefs(ctx, q, accountID, ids)
	if err != nil {
		return nil, err
	}
	out := []exposedAgent{}
	for _, t := range ts {
		b, ok := briefs[t.AgentID]
		if !ok || !keep(b) {
			continue
		}
		t.AgentName, t.AgentDescription, t.TriggerType = b.Name, b.Description, b.TriggerType
		out = append(out, t)
	}
	return out, nil
}

// get returns how a live agent of the account is exposed, or
// store.ErrNotFound when it is not.
func (r repo) get(ctx context.Context, accountID, agentID string) (exposedAgent, error) {
	t, err := store.One(ctx, r.db.R, scanExposed, agentMCPToolSelect+` WHERE agent_id = $1 AND account_id = $2`, agentID, accountID)
	if err != nil {
		return t, err
	}
	found, err := withAgents(ctx, r.db.R, accountID, []exposedAgent{t}, func(b agentrow.Brief) bool { return !b.Deleted })
	if err != nil {
		return exposedAgent{}, err
	}
	if len(found) == 0 {
		return exposedAgent{}, store.ErrNotFound
	}
	return found[0], nil
}

// list lists a page of the account's exposed agents that are live and not
// paused, by tool name, and how many there are. Which agents are live and
// not paused is the agents area's answer, so the account's exposed agents
// are read whole, by tool name, and paged here.
func (r repo) list(ctx context.Context, accountID string, offset, limit int) ([]exposedAgent, int, error) {
	all, err := store.All(ctx, r.db.R, scanExposed, agentMCPToolSelect+` WHERE account_id = $1 ORDER BY tool_name`, accountID)
	if err != nil {
		return nil, 0, err
	}
	shown, err := withAgents(ctx, r.db.R, accountID, all, func(b agentrow.Brief) bool { return !b.Deleted && !b.Disabled })
	if err != nil {
		return nil, 0, err
	}
	total := len(shown)
	if offset >= total {
		return []exposedAgent{}, total, nil
	}
	if limit >= 0 && offset+limit < total {
		shown = shown[:offset+limit]
	}
	return shown[offset:], total, nil
}
