package agents

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The versions of an agent's workflow keep their SQL here, beside the
// service that lists, compares and restores them (issue 31's vertical
// slices). The history rows are written by the agent's update, in its
// transaction (keepHistory).

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

// DefinitionVersion is one past definition of an agent.
type DefinitionVersion struct {
	ChangeID      string
	SchemaVersion string
	Definition    json.RawMessage
	SavedAt       time.Time
	SavedBy       string
	ReplacedAt    time.Time
	ReplacedBy    string
}

// versionRepo is the workflow versions' SQL.
type versionRepo struct{ db *store.DB }

func (s *Service) versions() versionRepo { return versionRepo{s.db} }

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

const versionColumns = `SELECT change_id, schema_version, definition, saved_at, saved_by, is_current FROM (` + versionsOf + `) v`

// list returns a page of an agent's versions, newest first (the current
// one first), and how many there are. ErrNotFound: no such agent in the
// account.
func (q versionRepo) list(ctx context.Context, accountID, agentID string, limit, offset int) ([]AgentVersion, int, error) {
	var total int
	if err := q.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+versionsOf+`) v`, agentID, accountID).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 {
		return nil, 0, store.ErrNotFound
	}
	out, err := store.All(ctx, q.db.R, scanVersion, versionColumns+
		` ORDER BY is_current DESC, saved_at DESC, hid DESC LIMIT $3 OFFSET $4`, agentID, accountID, limit, offset)
	return out, total, err
}

// of returns one version of an agent by its change id. ErrNotFound: no
// such agent in the account, or no such version of it.
func (q versionRepo) of(ctx context.Context, accountID, agentID, changeID string) (AgentVersion, error) {
	return store.One(ctx, q.db.R, scanVersion, versionColumns+
		` WHERE change_id = $3 ORDER BY is_current DESC LIMIT 1`, agentID, accountID, changeID)
}

// previous returns the version saved just before of; ErrNotFound when of
// is the first.
func (q versionRepo) previous(ctx context.Context, accountID, agentID string, of AgentVersion) (AgentVersion, error) {
	return store.One(ctx, q.db.R, scanVersion, versionColumns+
		` WHERE is_current = 0 AND change_id <> $3 AND saved_at <= $4
		ORDER BY saved_at DESC, hid DESC LIMIT 1`, agentID, accountID, of.ChangeID, of.SavedAt)
}

func scanVersion(row store.Scanner) (AgentVersion, error) {
	var (
		v       AgentVersion
		def     string
		current int
	)
	if err := row.Scan(&v.ChangeID, &v.SchemaVersion, &def, &v.SavedAt, &v.SavedBy, &current); err != nil {
		return AgentVersion{}, err
	}
	v.Definition, v.SavedAt, v.Current = json.RawMessage(def), v.SavedAt.UTC(), current == 1
	return v, nil
}

// DefinitionHistory returns an agent's previous definitions, oldest first.
// No request reads it (the versions above do); the tests of the areas that
// change a definition (an upgrade of its model, a save) check what it kept.
func DefinitionHistory(ctx context.Context, db *store.DB, accountID, agentID string) ([]DefinitionVersion, error) {
	return store.All(ctx, db.R, func(row store.Scanner) (DefinitionVersion, error) {
		var (
			v   DefinitionVersion
			def string
		)
		if err := row.Scan(&v.ChangeID, &v.SchemaVersion, &def, &v.SavedAt, &v.SavedBy, &v.ReplacedAt, &v.ReplacedBy); err != nil {
			return v, err
		}
		v.Definition = json.RawMessage(def)
		v.SavedAt, v.ReplacedAt = v.SavedAt.UTC(), v.ReplacedAt.UTC()
		return v, nil
	}, `SELECT change_id, schema_version, definition, saved_at, COALESCE(saved_by, ''),
		replaced_at, COALESCE(replaced_by, '') FROM agent_definition_history
		WHERE account_id = $1 AND agent_id = $2 ORDER BY replaced_at, id`, accountID, agentID)
}
