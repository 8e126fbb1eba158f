package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// AgentMCPTool is an agent an account exposes as a tool of its MCP server.
type AgentMCPTool struct {
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

// PutAgentMCPTool exposes a live agent of the account as a tool, or renames
// it. A name another agent of the account holds is ErrConflict; an agent
// that is not the account's is ErrNotFound.
func (db *DB) PutAgentMCPTool(ctx context.Context, accountID, agentID, toolName string, description *string) error {
	now := Now()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
			agentID, accountID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_mcp_tools a JOIN agents g ON g.id = a.agent_id
			WHERE a.account_id = $1 AND a.tool_name = $2 AND a.agent_id <> $3 AND g.deleted_at IS NULL`,
			accountID, toolName, agentID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrConflict
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
			return ErrConflict // a concurrent write took the name
		}
		return err
	})
}

// DeleteAgentMCPTool stops exposing an agent (nothing when it was not).
func (db *DB) DeleteAgentMCPTool(ctx context.Context, accountID, agentID string) error {
	_, err := db.W.ExecContext(ctx, `DELETE FROM agent_mcp_tools WHERE agent_id = $1 AND account_id = $2`, agentID, accountID)
	return err
}

const agentMCPToolSelect = `SELECT t.agent_id, t.account_id, t.tool_name, t.description, t.created_at, t.updated_at,
	g.name, g.description, COALESCE(tr.trigger_type, '')
	FROM agent_mcp_tools t JOIN agents g ON g.id = t.agent_id AND g.account_id = t.account_id
	LEFT JOIN agent_triggers tr ON tr.agent_id = g.id`

func scanAgentMCPTool(row interface{ Scan(...any) error }) (AgentMCPTool, error) {
	var t AgentMCPTool
	var desc, agentDesc sql.NullString
	err := row.Scan(&t.AgentID, &t.AccountID, &t.ToolName, &desc, &t.CreatedAt, &t.UpdatedAt, &t.AgentName, &agentDesc, &t.TriggerType)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
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

// AgentMCPTool returns how a live agent of the account is exposed, or
// ErrNotFound when it is not.
func (db *DB) AgentMCPTool(ctx context.Context, accountID, agentID string) (AgentMCPTool, error) {
	return scanAgentMCPTool(db.R.QueryRowContext(ctx, agentMCPToolSelect+
		` WHERE t.agent_id = $1 AND t.account_id = $2 AND g.deleted_at IS NULL`, agentID, accountID))
}

// AgentMCPTools lists a page of the account's exposed agents that are live
// and not paused, by tool name, and how many there are.
func (db *DB) AgentMCPTools(ctx context.Context, accountID string, offset, limit int) ([]AgentMCPTool, int, error) {
	const where = ` WHERE t.account_id = $1 AND g.deleted_at IS NULL AND g.disabled_at IS NULL`
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_mcp_tools t JOIN agents g ON g.id = t.agent_id AND g.account_id = t.account_id`+where,
		accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, agentMCPToolSelect+where+` ORDER BY t.tool_name LIMIT $2 OFFSET $3`, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []AgentMCPTool{}
	for rows.Next() {
		t, err := scanAgentMCPTool(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}
