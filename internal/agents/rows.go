package agents

import (
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
)

// The rows this area's repository reads and writes. An agent's row and
// its settings are declared in the leaf package agentrow, for the areas
// that read agents through an interface of their own (see its doc);
// here they go by the area's name, so that its callers (the API) need
// name only this package.
type (
	Agent         = agentrow.Agent
	AgentSettings = agentrow.Settings
	AgentRef      = agentrow.Ref
)

// AgentName is an agent's id and name, for listings of references.
type AgentName struct {
	ID          string
	Name        string
	Description *string
	Disabled    bool
}

// Trigger is what starts an agent's runs: its type, its settings as a JSON
// object, and, for schedule triggers, its cron schedules.
type Trigger struct {
	ID        string
	AccountID string
	AgentID   string
	Type      string
	Config    json.RawMessage // JSON object; "{}" when empty
	Schedules []Schedule
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Schedule is one cron schedule of a trigger. Validation (cron syntax, time
// zone) and NextRunAt are the service's job.
type Schedule struct {
	ID             string
	CronExpression string
	Timezone       string
	Enabled        bool
	Extra          json.RawMessage // other keys of an imported schedule; nil when none
	NextRunAt      *time.Time
	CreatedAt      time.Time
}
