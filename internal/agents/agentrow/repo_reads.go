package agentrow

import (
	"context"
	"database/sql"

	"github.com/agentry/agentry/internal/store"
)

// The agents table as other areas ask about it: whether an agent exists
// or is live, its name, and the briefs their listings show. Each takes
// the caller's querier, a pool or the transaction the question belongs
// to, so an area checks an agent in its own write's transaction.

// Exists reports whether agentID is an agent of the account, deleted or
// not.
func Exists(ctx context.Context, q store.Querier, accountID, agentID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2`, agentID, accountID).Scan(&n)
	return n > 0, err
}

// Live reports whether agentID is a live (not deleted) agent of the
// account.
func Live(ctx context.Context, q store.Querier, accountID, agentID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
		agentID, accountID).Scan(&n)
	return n > 0, err
}

// LiveNamed returns the oldest live agent of the account whose name is
// lowerName in lower case; store.ErrNotFound when there is none.
func LiveNamed(ctx context.Context, q store.Querier, accountID, lowerName string) (string, error) {
	return store.One(ctx, q, store.ScanString,
		`SELECT id FROM agents WHERE account_id = $1 AND deleted_at IS NULL AND LOWER(name) = $2 ORDER BY id LIMIT 1`, accountID, lowerName)
}

// ChangeID returns the current definition's change id of an agent ("",
// store.ErrNotFound when there is no such agent): a run not pinned to a
// version runs it.
func ChangeID(ctx context.Context, q store.Querier, agentID string) (string, error) {
	return store.One(ctx, q, store.ScanString, `SELECT change_id FROM agents WHERE id = $1`, agentID)
}

// Names returns the names of those of ids that are agents of the
// account, deleted or not, by id.
func Names(ctx context.Context, q store.Querier, accountID string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	err := store.InChunks(ids, func(part []any) error {
		rows, err := store.All(ctx, q, func(row store.Scanner) ([2]string, error) {
			var p [2]string
			return p, row.Scan(&p[0], &p[1])
		}, `SELECT id, name FROM agents WHERE account_id = $1 AND id IN (`+store.Placeholders(2, len(part))+`)`,
			append([]any{accountID}, part...)...)
		for _, p := range rows {
			out[p[0]] = p[1]
		}
		return err
	})
	return out, err
}

// LiveAmong returns which of ids are live agents (of any account: the
// caller's ids are its own account's already).
func LiveAmong(ctx context.Context, q store.Querier, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := store.InChunks(ids, func(part []any) error {
		live, err := store.All(ctx, q, store.ScanString,
			`SELECT id FROM agents WHERE deleted_at IS NULL AND id IN (`+store.Placeholders(1, len(part))+`)`, part...)
		for _, id := range live {
			out[id] = true
		}
		return err
	})
	return out, err
}

// DeletedAmong returns which of ids are deleted agents of the account.
func DeletedAmong(ctx context.Context, q store.Querier, accountID string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := store.InChunks(ids, func(part []any) error {
		gone, err := store.All(ctx, q, store.ScanString, `SELECT id FROM agents WHERE account_id = $1 AND deleted_at IS NOT NULL
			AND id IN (`+store.Placeholders(2, len(part))+`)`, append([]any{accountID}, part...)...)
		for _, id := range gone {
			out[id] = true
		}
		return err
	})
	return out, err
}

// Brief is what another area's listing shows of an agent: its name,
// description, trigger and state.
type Brief struct {
	ID, Name      string
	Description   *string
	TriggerType   string // "" when the agent has no trigger
	TriggerConfig string // the trigger's config JSON, "" when none
	Deleted       bool
	Disabled      bool
}

// Briefs returns the briefs of those of ids that are agents of the
// account, deleted or not, by id.
func Briefs(ctx context.Context, q store.Querier, accountID string, ids []string) (map[string]Brief, error) {
	out := map[string]Brief{}
	err := store.InChunks(ids, func(part []any) error {
		rows, err := store.All(ctx, q, scanBrief, `SELECT `+briefColumns+` FROM agents a LEFT JOIN agent_triggers t ON t.agent_id = a.id
			WHERE a.account_id = $1 AND a.id IN (`+store.Placeholders(2, len(part))+`)`, append([]any{accountID}, part...)...)
		for _, b := range rows {
			out[b.ID] = b
		}
		return err
	})
	return out, err
}

const briefColumns = `a.id, a.name, a.description, COALESCE(t.trigger_type, ''), COALESCE(t.config, ''),
	a.deleted_at IS NOT NULL, a.disabled_at IS NOT NULL`

func scanBrief(row store.Scanner) (Brief, error) {
	var (
		b    Brief
		desc sql.NullString
	)
	err := row.Scan(&b.ID, &b.Name, &desc, &b.TriggerType, &b.TriggerConfig, &b.Deleted, &b.Disabled)
	b.Description = store.StringOrNil(desc)
	return b, err
}

// LiveWithDefinitionContaining lists the live agents of the account whose
// current definition holds text (an id it names), as (id, name) pairs by
// name.
func LiveWithDefinitionContaining(ctx context.Context, q store.Querier, accountID, text string) ([][2]string, error) {
	return store.All(ctx, q, func(row store.Scanner) ([2]string, error) {
		var a [2]string
		return a, row.Scan(&a[0], &a[1])
	}, `SELECT id, name FROM agents WHERE account_id = $1 AND deleted_at IS NULL AND definition LIKE $2 ORDER BY name, id`,
		accountID, "%"+text+"%")
}

// Route is a live agent as a trigger reaches it.
type Route struct{ AccountID, AgentID, TriggerID, TriggerType string }

// LiveRoute returns the trigger of a live agent, of the account unless
// accountID is ""; store.ErrNotFound when there is none.
func LiveRoute(ctx context.Context, q store.Querier, accountID, agentID string) (Route, error) {
	return store.One(ctx, q, func(row store.Scanner) (Route, error) {
		var rt Route
		return rt, row.Scan(&rt.AccountID, &rt.AgentID, &rt.TriggerID, &rt.TriggerType)
	}, `SELECT a.account_id, a.id, t.id, t.trigger_type FROM agents a
		JOIN agent_triggers t ON t.agent_id = a.id WHERE a.deleted_at IS NULL AND a.id = $1 AND ($2 = '' OR a.account_id = $2)`,
		agentID, accountID)
}

// LiveWithTrigger lists an account's live agents of a trigger type.
func LiveWithTrigger(ctx context.Context, q store.Querier, accountID, triggerType string) ([]string, error) {
	return store.All(ctx, q, store.ScanString, `SELECT a.id FROM agents a JOIN agent_triggers t ON t.agent_id = a.id
		WHERE a.account_id = $1 AND t.trigger_type = $2 AND a.deleted_at IS NULL ORDER BY a.id`, accountID, triggerType)
}

// LiveBriefsByName returns the briefs of those of ids that are live
// agents of the account, by name (then id), in one statement.
func LiveBriefsByName(ctx context.Context, q store.Querier, accountID string, ids []string) ([]Brief, error) {
	if len(ids) == 0 {
		return []Brief{}, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, accountID)
	for _, id := range ids {
		args = append(args, id)
	}
	return store.All(ctx, q, scanBrief, `SELECT `+briefColumns+` FROM agents a LEFT JOIN agent_triggers t ON t.agent_id = a.id
		WHERE a.account_id = $1 AND a.deleted_at IS NULL AND a.id IN (`+store.Placeholders(2, len(ids))+`) ORDER BY a.name, a.id`, args...)
}

// Search is how the account search (internal/search) finds agents: by
// name and description, live ones only.
var Search = store.SearchTable{Table: "agents", NameExpr: "name", DescExpr: "description", Where: "deleted_at IS NULL"}
