package mcpexpose

// The MCP-exposure area keeps its own persistence (issue 31's vertical
// slices): the table agent_mcp_tools is read and written only here (it
// joins the agents it names for their names and state).

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

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
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
			agentID, accountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_mcp_tools a JOIN agents g ON g.id = a.agent_id
			WHERE a.account_id = $1 AND a.tool_name = $2 AND a.agent_id <> $3 AND g.deleted_at IS NULL`,
			accountID, toolName, agentID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return store.ErrConflict
		}
		// A deleted agent's row may hold the name still: it gives way.
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_mcp_tools WHERE account_id = $1 AND tool_name = $2 AND agent_id <> $3`,
			accountID, toolName, agentID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO agent_mcp_tools (agent_id, account_id, tool_name, description, created_at, updated_at)
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

const agentMCPToolSelect = `SELECT t.agent_id, t.account_id, t.tool_name, t.description, t.created_at, t.updated_at,
	g.name, g.description, COALESCE(tr.trigger_type, '')
	FROM agent_mcp_tools t JOIN agents g ON g.id = t.agent_id AND g.account_id = t.account_id
	LEFT JOIN agent_triggers tr ON tr.agent_id = g.id`

func scanExposed(row store.Scanner) (exposedAgent, error) {
	var t exposedAgent
	var desc, agentDesc sql.NullString
	err := row.Scan(&t.AgentID, &t.AccountID, &t.ToolName, &desc, &t.CreatedAt, &t.UpdatedAt, &t.AgentName, &agentDesc, &t.TriggerType)
	if errors.Is(err, sql.ErrNoRows) {
		return t, store.ErrNotFound
	}
	if desc.Valid {
		t.Description = &desc.String
	}
	if agentDesc.Valid {
		t.AgentDescription = &agentDesc.String
	}
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, err
}

// get returns how a live agent of the account is exposed, or
// store.ErrNotFound when it is not.
func (r repo) get(ctx context.Context, accountID, agentID string) (exposedAgent, error) {
	return scanExposed(r.db.R.QueryRowContext(ctx, agentMCPToolSelect+
		` WHERE t.agent_id = $1 AND t.account_id = $2 AND g.deleted_at IS NULL`, agentID, accountID))
}

// list lists a page of the account's exposed agents that are live and not
// paused, by tool name, and how many there are.
func (r repo) list(ctx context.Context, accountID string, offset, limit int) ([]exposedAgent, int, error) {
	const where = ` WHERE t.account_id = $1 AND g.deleted_at IS NULL AND g.disabled_at IS NULL`
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_mcp_tools t JOIN agents g ON g.id = t.agent_id AND g.account_id = t.account_id`+where,
		accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanExposed, agentMCPToolSelect+where+` ORDER BY t.tool_name LIMIT $2 OFFSET $3`, accountID, limit, offset)
	return out, total, err
}
