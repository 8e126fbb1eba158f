-- +goose Up
-- Agents an account exposes as tools of its MCP server (an extension, see
-- docs/mcp.md): one row per exposed agent, named uniquely in the account.
CREATE TABLE agent_mcp_tools (
    agent_id    TEXT PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    tool_name   TEXT NOT NULL,
    description TEXT,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE UNIQUE INDEX agent_mcp_tools_name ON agent_mcp_tools (account_id, tool_name);

-- +goose Down
DROP TABLE agent_mcp_tools;
