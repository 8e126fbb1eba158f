package modelalerts

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/store"
)

// Alert types beyond the lifecycle ones (model_deprecated, model_sunset,
// model_newer_available), for the changes the upgrade job makes itself.
const (
	TypeAutoUpgraded    = "model_auto_upgraded"
	TypeAutoRolledBack  = "model_auto_rolled_back"
	TypeRollbackBlocked = "model_rollback_blocked"
)

// Service raises and serves model lifecycle alerts and applies agents'
// upgrade strategies.
type Service struct {
	DB      *store.DB
	Catalog *catalog.Catalog
	// Agents reads the agents whose models are checked and upgrades them.
	Agents Agents
	// Policy tunes the lifecycle windows (zero values: the defaults).
	Policy lifecycle.Policy
	// Now is the clock; tests move it to the dates the catalog names.
	Now func() time.Time
	// Raiser, when set, is the alerts area: each new lifecycle alert
	// (model_deprecated, model_sunset, model_newer_available) also raises
	// the account's alert configs of that type.
	Raiser Raiser

	repo repo
}

// Agents is what the model lifecycle reads and writes of the agents area
// (models → agents; the server supplies the agents' repository).
type Agents interface {
	// Agent is a live agent of the account; store.ErrNotFound for any
	// other.
	Agent(ctx context.Context, accountID, agentID string) (agentrow.Agent, error)
	// UpdateAgent changes an agent in one transaction (edit changes the
	// row it loaded, locked); a changed definition keeps the previous one
	// in the agent's history.
	UpdateAgent(ctx context.Context, accountID, agentID, userID string, edit func(a *agentrow.Agent) error) (agentrow.Agent, error)
	// AgentsAfter pages through the live agents of every account in id
	// order, for the sweeps.
	AgentsAfter(ctx context.Context, afterID string, limit int) ([]agentrow.Ref, error)
}

// Raiser raises alerts from alert configs: the alerts area, through the
// server's adapter.
type Raiser interface {
	Raise(ctx context.Context, ev Signal) error
}

// Signal is a new lifecycle alert of an agent, for the alert configs of
// its type.
type Signal struct {
	AccountID, AgentID string
	Type               string
	Message            string
	Details            map[string]any
}

// New builds the service over the process's catalog and the agents a
// answers for; raiser is the alerts area (nil: lifecycle alerts raise no
// alert configs).
func New(db *store.DB, cat *catalog.Catalog, a Agents, raiser Raiser) *Service {
	return &Service{DB: db, Catalog: cat, Agents: a, Raiser: raiser, Now: func() time.Time { return time.Now().UTC() }, repo: repo{db: db}}
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// Query selects alerts for List.
type Query struct {
	AgentID    string
	UnreadOnly bool
	Offset     int
	Limit      int
}

// List returns a page of an account's alerts, newest first, and the total.
func (s *Service) List(ctx context.Context, accountID string, q Query) ([]ModelAlert, int, error) {
	return s.repo.alerts(ctx, accountID, alertFilter{AgentID: q.AgentID, UnreadOnly: q.UnreadOnly}, q.Offset, q.Limit)
}

// UnreadCount counts an account's unread alerts.
func (s *Service) UnreadCount(ctx context.Context, accountID string) (int, error) {
	return s.repo.unreadAlerts(ctx, accountID)
}

// MarkRead dismisses one alert; store.ErrNotFound for an alert that is
// not the account's.
func (s *Service) MarkRead(ctx context.Context, accountID, alertID string) error {
	return s.repo.markAlertRead(ctx, accountID, alertID)
}

// MarkAllRead dismisses every unread alert of the account.
func (s *Service) MarkAllRead(ctx context.Context, accountID string) (int, error) {
	return s.repo.markAllAlertsRead(ctx, accountID)
}

// RecordSignal stores a failure signal about an agent for the rollback
// rules: evaluations call it with agent_eval_fail, governance with
// governance_flag or governance_block. Failed runs need no call; they are
// read from the runs themselves.
func (s *Service) RecordSignal(ctx context.Context, accountID, agentID string, signal lifecycle.Signal, at time.Time) error {
	if _, err := lifecycle.ParseSignal(string(signal)); err != nil {
		return err
	}
	if at.IsZero() {
		at = s.now()
	}
	return s.repo.recordSignal(ctx, accountID, agentID, string(signal), at)
}
