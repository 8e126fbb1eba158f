package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// AgentVersion is one saved version of an agent's workflow: the current
// definition (agents) or a previous one (agent_definition_history). Every
// save of a changed definition makes a version; none is ever rewritten.
type AgentVersion struct {
	ChangeID      string
	SchemaVersion string
	Definition    json.RawMessage
	SavedAt       time.Time
	SavedBy       string // user id; "" when saved by an API key of no user or an operator
	Current       bool
}

// versionsOf is the current version and the history of one live agent of
// the account, in one row shape; hid orders versions saved in the same
// instant (history ids are time-ordered).
const versionsOf = `SELECT change_id, schema_version, definition, definition_saved_at AS saved_at,
		COALESCE(definition_saved_by, '') AS saved_by, 1 AS is_current, '' AS hid
		FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
	UNION ALL
	SELECT h.change_id, h.schema_version, h.definition, h.saved_at, COALESCE(h.saved_by, ''), 0, h.id
		FROM agent_definition_history h JOIN agents a ON a.id = h.agent_id
		WHERE h.agent_id = $1 AND h.account_id = $2 AND a.account_id = $2 AND a.deleted_at IS NULL`

// AgentVersions returns a page of an agent's versions, newest first (the
// current one first), and how many there are. ErrNotFound: no such agent
// in the account.
func (db *DB) AgentVersions(ctx context.Context, accountID, agentID string, limit, offset int) ([]AgentVersion, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+versionsOf+`) v`, agentID, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 {
		return nil, 0, ErrNotFound
	}
	rows, err := db.R.QueryContext(ctx, `SELECT change_id, schema_version, definition, saved_at, saved_by, is_current FROM (`+
		versionsOf+`) v ORDER BY is_current DESC, saved_at DESC, hid DESC LIMIT $3 OFFSET $4`, agentID, accountID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []AgentVersion
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// AgentVersionOf returns one version of an agent by its change id.
// ErrNotFound: no such agent in the account, or no such version of it.
func (db *DB) AgentVersionOf(ctx context.Context, accountID, agentID, changeID string) (AgentVersion, error) {
	return scanVersion(db.R.QueryRowContext(ctx, `SELECT change_id, schema_version, definition, saved_at, saved_by, is_current FROM (`+
		versionsOf+`) v WHERE change_id = $3 ORDER BY is_current DESC LIMIT 1`, agentID, accountID, changeID))
}

// PreviousAgentVersion returns the version saved just before the one of
// changeID; ErrNotFound when that is the first.
func (db *DB) PreviousAgentVersion(ctx context.Context, accountID, agentID string, of AgentVersion) (AgentVersion, error) {
	return scanVersion(db.R.QueryRowContext(ctx, `SELECT change_id, schema_version, definition, saved_at, saved_by, is_current FROM (`+
		versionsOf+`) v WHERE is_current = 0 AND change_id <> $3 AND saved_at <= $4
		ORDER BY saved_at DESC, hid DESC LIMIT 1`, agentID, accountID, of.ChangeID, of.SavedAt))
}

func scanVersion(row interface{ Scan(...any) error }) (AgentVersion, error) {
	var (
		v       AgentVersion
		def     string
		current int
	)
	err := row.Scan(&v.ChangeID, &v.SchemaVersion, &def, &v.SavedAt, &v.SavedBy, &current)
	if errors.Is(err, sql.ErrNoRows) {
		return AgentVersion{}, ErrNotFound
	}
	if err != nil {
		return AgentVersion{}, err
	}
	v.Definition, v.SavedAt, v.Current = json.RawMessage(def), v.SavedAt.UTC(), current == 1
	return v, nil
}
