package agents

import (
	"context"
	"database/sql"
	"encoding/json"
)

// AlertConfig is an agent's alert configuration, as an import creates it
// and an export writes it back.
type AlertConfig struct {
	AlertType        string
	Enabled          bool
	Threshold        json.RawMessage // JSON object or nil
	CooldownMinutes  int
	DistributionType string
	RecipientUserIDs []string
	// Extra keeps the keys of an imported configuration this version does
	// not model, so an export gives them back.
	Extra json.RawMessage
}

// AlertConfigs keeps agents' alert configurations: the alerts area's,
// which the server adapts (this area does not import it).
type AlertConfigs interface {
	// CreateWithAgent stores an imported agent's configurations in the
	// transaction that creates the agent.
	CreateWithAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string, cs []AlertConfig) error
	// OfAgent lists an agent's configurations, oldest first.
	OfAgent(ctx context.Context, accountID, agentID string) ([]AlertConfig, error)
	// MaxPerAgent is how many configurations an agent may have.
	MaxPerAgent() int
}

// withAlerts is the write that stores an import's alert configurations
// with the new agent (none when there are none).
func (s *Service) withAlerts(accountID string, cs []AlertConfig) []func(ctx context.Context, tx *sql.Tx, agentID string) error {
	if len(cs) == 0 {
		return nil
	}
	return []func(ctx context.Context, tx *sql.Tx, agentID string) error{func(ctx context.Context, tx *sql.Tx, agentID string) error {
		return s.cfg.AlertConfigs.CreateWithAgent(ctx, tx, accountID, agentID, cs)
	}}
}
