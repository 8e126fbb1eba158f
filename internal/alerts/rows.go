package alerts

import (
	"encoding/json"
	"time"
)

// AlertConfig is an alert configuration (AlertConfigResponse).
type AlertConfig struct {
	ID                 string
	AccountID          string
	AgentID            string
	SourceConnectionID string
	AlertType          string
	Enabled            bool
	Threshold          json.RawMessage // JSON object or nil
	CooldownMinutes    int
	LastAlertedAt      *time.Time
	DistributionType   string
	RecipientUserIDs   []string
	Extra              json.RawMessage
	CreatedAt          time.Time
	UpdatedAt          time.Time
	// WebhookURL and WebhookSecretName (an extension): where
	// the config's alerts are also posted, and the account secret that
	// signs them. CheckedAt is the detectors' watermark.
	WebhookURL        string
	WebhookSecretName string
	CheckedAt         *time.Time
}

// MaxAlertConfigsPerScope bounds an account's own alert configurations
// (account and source ones), and each agent's: every one of a type is
// considered on each event of that type.
const MaxAlertConfigsPerScope = 100
