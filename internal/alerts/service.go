// Package alerts owns alerting: alert configurations of agents, sources
// and accounts; the alerts they raise, with their lifecycle (triggered,
// acknowledged, resolved, dismissed), history, comments and subscribers;
// the users' per-organization delivery preferences; detection (an inline
// hook on finished runs, sliding-window detectors and credit sweeps as
// River jobs, and Raise for the other areas' signals); and delivery of
// alerts as signed webhooks and e-mail.
package alerts

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/store"
	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Queue enqueues jobs (internal/jobs.Queue), alone or within a transaction.
type Queue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error)
	InsertTx(ctx context.Context, tx *sql.Tx, conn *sql.Conn, args river.JobArgs, opts *river.InsertOpts) (wake func(), err error)
}

// Secrets reveals account secrets (internal/secrets.Service): the key a
// webhook is signed with, and the hosts its writer bound it to.
type Secrets interface {
	Reveal(ctx context.Context, accountID, name string) (secrets.Secret, error)
}

// Service is the alerts area.
type Service struct {
	// DB serves what the area reads of others' (accounts, users, credits
	// balance); the area's own tables are its repo's.
	DB      *store.DB
	repo    repo
	Queue   Queue
	Secrets Secrets
	// HTTP sends webhooks; it must be the outbound guard's client
	// (engine.WebhookPolicy.Client), which refuses non-public addresses.
	HTTP *http.Client
	// Mailer sends alert e-mail; nil records e-mail deliveries as skipped.
	Mailer Mailer
	// Sources answers whether a configuration's source_connection_id
	// names a live source of the account; nil: none does.
	Sources Sources
	// Now is the clock (tests move it).
	Now func() time.Time

	finished chan FinishedRun
	// overflow counts finished runs the inline path had no room for (the
	// catch-up sweep counts them instead).
	overflow atomic.Int64
}

// Sources is the knowledge area's sources, which source pull alerts
// watch: the knowledge area owns them (alerts → knowledge).
type Sources interface {
	SourceExists(ctx context.Context, accountID, id string) (bool, error)
}

// New builds the service; mailer sends alert e-mail (nil: e-mail
// deliveries are recorded as skipped), sources answers for the sources
// configurations name (nil: no source_connection_id is accepted).
func New(db *store.DB, q Queue, secrets Secrets, httpClient *http.Client, mailer Mailer, sources Sources) *Service {
	return &Service{DB: db, repo: repo{db}, Queue: q, Secrets: secrets, HTTP: httpClient, Mailer: mailer, Sources: sources, finished: make(chan FinishedRun, finishedBuffer)}
}

// sourceExists reports whether the account has a live source id.
func (s *Service) sourceExists(ctx context.Context, accountID, id string) (bool, error) {
	if s.Sources == nil {
		return false, nil
	}
	return s.Sources.SourceExists(ctx, accountID, id)
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// The area's refusals, in the fault vocabulary.
var (
	ErrInvalid         = errors.New("invalid alert request") // 422, with a Problem
	ErrForbidden error = &fault.Forbidden{Err: errors.New("only owners and administrators of the organization may do this")}
	// ErrReopened: an alert cannot reopen while its configuration has
	// opened another since (409); it matches store.ErrConflict.
	ErrReopened error = &fault.Conflict{Msg: "Another alert of the same config is open; resolve or dismiss it first", Err: store.ErrConflict}
)

// Problem is a 422 naming the field at fault.
type Problem struct {
	Field string // the body field, or query/path parameter
	Msg   string
	// In is where the field is: "body" (when empty), "query" or "path".
	In string
}

func (p *Problem) Error() string { return p.Field + ": " + p.Msg }
func (p *Problem) Unwrap() error { return ErrInvalid }

// As reads the refusal as the fault vocabulary's Invalid.
func (p *Problem) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		in := p.In
		if in == "" {
			in = "body"
		}
		*t = fault.InvalidAt([]any{in, p.Field}, p.Msg, "value_error").Because(p)
	}
	return ok
}

func invalid(field, format string, args ...any) error {
	return &Problem{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// invalidIn is invalid for a query or path parameter.
func invalidIn(in, field, format string, args ...any) error {
	return &Problem{In: in, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ConfigInput creates or (with nil fields left alone) updates a configuration.
type ConfigInput struct {
	AlertType          string
	AgentID            *string
	SourceConnectionID *string
	Enabled            *bool
	Threshold          json.RawMessage // nil: unchanged; "null": cleared
	CooldownMinutes    *int
	DistributionType   *string
	RecipientUserIDs   *[]string
}

// CreateConfig validates and stores a configuration. Organization accounts
// are normalized to the owner_admins distribution unless members are
// selected by name.
func (s *Service) CreateConfig(ctx context.Context, accountID string, in ConfigInput) (AlertConfig, error) {
	if !slices.Contains(AllTypes, in.AlertType) {
		return AlertConfig{}, invalid("alert_type", "must be one of %s", strings.Join(AllTypes, ", "))
	}
	c := AlertConfig{AccountID: accountID, AlertType: in.AlertType, Enabled: true, CooldownMinutes: 60,
		DistributionType: DistributionOwner, RecipientUserIDs: []string{}}
	if in.AgentID != nil && *in.AgentID != "" {
		c.AgentID = *in.AgentID
	}
	if in.SourceConnectionID != nil && *in.SourceConnectionID != "" {
		c.SourceConnectionID = *in.SourceConnectionID
	}
	isSource := slices.Contains(SourceTypes, in.AlertType)
	switch {
	case c.AgentID != "" && c.SourceConnectionID != "":
		return c, invalid("source_connection_id", "an alert config names an agent or a source connection, not both")
	case isSource && c.AgentID != "":
		return c, invalid("agent_id", "%s is a source alert type; name a source_connection_id, or neither for the account", in.AlertType)
	case !isSource && c.SourceConnectionID != "":
		return c, invalid("source_connection_id", "%s is an agent alert type; name an agent_id, or neither for the account", in.AlertType)
	case slices.Contains(AccountTypes, in.AlertType) && c.AgentID != "":
		return c, invalid("agent_id", "%s is an account-level alert; leave agent_id out", in.AlertType)
	}
	if _, err := uuid.Parse(c.AgentID); c.AgentID != "" && err != nil {
		return c, invalid("agent_id", "is not a UUID")
	}
	if c.SourceConnectionID != "" {
		// Checked here, as agent_id is by the repo: another account's
		// source, a deleted one or a malformed id would otherwise make a
		// config that can never fire, and echo the id back as if it named
		// something.
		if _, err := uuid.Parse(c.SourceConnectionID); err != nil {
			return c, invalid("source_connection_id", "is not a UUID")
		}
		ok, err := s.sourceExists(ctx, accountID, c.SourceConnectionID)
		if err != nil {
			return c, err
		}
		if !ok {
			return c, invalid("source_connection_id", "no source connection %s in this account", c.SourceConnectionID)
		}
	}
	if err := s.apply(ctx, &c, in); err != nil {
		return c, err
	}
	out, err := s.repo.createConfig(ctx, c)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return out, invalid("agent_id", "no agent %s in this account", c.AgentID)
	case errors.Is(err, ErrTooManyAlertConfigs) && c.AgentID != "":
		return out, invalid("agent_id", "an agent has at most %d alert configs; delete one before adding another", MaxAlertConfigsPerScope)
	case errors.Is(err, ErrTooManyAlertConfigs):
		return out, invalid("alert_type", "an account has at most %d alert configs of its own (not an agent's); delete one before adding another",
			MaxAlertConfigsPerScope)
	}
	return out, err
}

// apply validates and applies the changeable fields of in to c.
func (s *Service) apply(ctx context.Context, c *AlertConfig, in ConfigInput) error {
	if in.Enabled != nil {
		c.Enabled = *in.Enabled
	}
	if in.Threshold != nil {
		if string(in.Threshold) == "null" {
			c.Threshold = nil
		} else {
			if _, err := ParseThreshold(c.AlertType, in.Threshold); err != nil {
				var te *ThresholdError
				errors.As(err, &te)
				return invalid("threshold", "%s", strings.TrimPrefix(te.Error(), "threshold"))
			}
			c.Threshold = in.Threshold
		}
	}
	if in.CooldownMinutes != nil {
		if *in.CooldownMinutes < 0 || *in.CooldownMinutes > MaxCooldownMinutes {
			return invalid("cooldown_minutes", "must be from 0 to %d minutes", MaxCooldownMinutes)
		}
		c.CooldownMinutes = *in.CooldownMinutes
	}
	if in.DistributionType != nil {
		if !slices.Contains(Distributions, *in.DistributionType) {
			return invalid("distribution_type", "must be one of %s", strings.Join(Distributions, ", "))
		}
		c.DistributionType = *in.DistributionType
	}
	if in.RecipientUserIDs != nil {
		ids := *in.RecipientUserIDs
		if len(ids) > MaxRecipients {
			return invalid("recipient_user_ids", "at most %d recipients", MaxRecipients)
		}
		c.RecipientUserIDs = []string{}
		for _, id := range ids {
			ok, err := directory.IsMember(ctx, s.DB, c.AccountID, id)
			if err != nil {
				return err
			}
			if !ok {
				return invalid("recipient_user_ids", "user %s is not a member of this account", id)
			}
			if !slices.Contains(c.RecipientUserIDs, id) {
				c.RecipientUserIDs = append(c.RecipientUserIDs, id)
			}
		}
	}
	if c.DistributionType == DistributionSelectedMembers && len(c.RecipientUserIDs) == 0 {
		return invalid("recipient_user_ids", "selected_members needs at least one recipient")
	}
	if c.DistributionType == DistributionOwner {
		// Organizations have no single owner to send to: the contract
		// normalizes them to owners and administrators.
		if a, err := directory.GetAccount(ctx, s.DB, c.AccountID); err == nil && a.Kind == directory.KindOrganization {
			c.DistributionType = DistributionOwnerAdmins
		}
	}
	return nil
}

// CreateAgentConfigs stores an imported agent's configurations in tx, the
// transaction that creates the agent; the import has checked them.
func (s *Service) CreateAgentConfigs(ctx context.Context, tx *sql.Tx, accountID, agentID string, cs []AlertConfig) error {
	return s.repo.createWithAgent(ctx, tx, accountID, agentID, cs)
}

// AgentConfigs lists an agent's configurations, oldest first (its export).
func (s *Service) AgentConfigs(ctx context.Context, accountID, agentID string) ([]AlertConfig, error) {
	return s.repo.ofAgent(ctx, accountID, agentID)
}

// Config returns one of an account's configurations.
func (s *Service) Config(ctx context.Context, accountID, id string) (AlertConfig, error) {
	return s.repo.config(ctx, accountID, id)
}

// ConfigQuery selects configurations (see the contract's filters).
type ConfigQuery struct {
	AgentID, SourceConnectionID, Scope string
	Offset, Limit                      int
}

// Configs lists an account's configurations.
func (s *Service) Configs(ctx context.Context, accountID string, q ConfigQuery) ([]AlertConfig, int, error) {
	if q.Scope != "" && q.Scope != "source" {
		return nil, 0, invalidIn("query", "scope", "must be 'source' or left out")
	}
	return s.repo.configs(ctx, accountID, configFilter{AgentID: q.AgentID, SourceConnectionID: q.SourceConnectionID,
		SourceScope: q.Scope == "source", SourceTypes: SourceTypes}, q.Offset, q.Limit)
}

// UpdateConfig changes the fields in sets.
func (s *Service) UpdateConfig(ctx context.Context, accountID, id string, in ConfigInput) (AlertConfig, error) {
	c, err := s.repo.config(ctx, accountID, id)
	if err != nil {
		return c, err
	}
	if err := s.apply(ctx, &c, in); err != nil {
		return c, err
	}
	return s.repo.updateConfig(ctx, c)
}

// DeleteConfig removes a configuration; alerts it raised stay.
func (s *Service) DeleteConfig(ctx context.Context, accountID, id string) error {
	return s.repo.deleteConfig(ctx, accountID, id)
}

// MaxWebhookURLBytes bounds a webhook URL.
const MaxWebhookURLBytes = 2048

// SetWebhook makes a configuration's alerts post to rawURL, signed with the
// account secret secretName (which must exist). The address itself is
// checked when a delivery connects, after DNS resolution.
func (s *Service) SetWebhook(ctx context.Context, accountID, id, rawURL, secretName string) (AlertConfig, error) {
	if len(rawURL) > MaxWebhookURLBytes {
		return AlertConfig{}, invalid("url", "is longer than %d bytes", MaxWebhookURLBytes)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return AlertConfig{}, invalid("url", "must be an absolute http or https URL without credentials")
	}
	if _, err := s.repo.config(ctx, accountID, id); err != nil {
		return AlertConfig{}, err
	}
	sec, err := s.Secrets.Reveal(ctx, accountID, secretName)
	if err != nil {
		if errors.Is(err, secrets.ErrMissingSecret) || errors.Is(err, store.ErrNotFound) {
			return AlertConfig{}, invalid("secret_name", "%s", err.Error())
		}
		return AlertConfig{}, err
	}
	// Signatures made with the secret go where the secret may go: to the
	// hosts its writer bound it to.
	if err := outbound.CheckSecretHosts([]outbound.SecretBinding{sec.Binding()}, u); err != nil {
		return AlertConfig{}, invalid("secret_name", "%s", err.Error())
	}
	return s.repo.setWebhook(ctx, accountID, id, rawURL, secretName)
}

// ClearWebhook stops posting a configuration's alerts.
func (s *Service) ClearWebhook(ctx context.Context, accountID, id string) error {
	_, err := s.repo.setWebhook(ctx, accountID, id, "", "")
	return err
}

// Deliveries lists the delivery log of a configuration's alerts.
func (s *Service) Deliveries(ctx context.Context, accountID, configID string, offset, limit int) ([]AlertDelivery, int, error) {
	if _, err := s.repo.config(ctx, accountID, configID); err != nil {
		return nil, 0, err
	}
	return s.repo.deliveries(ctx, accountID, configID, "", offset, limit)
}

// AlertQuery selects alerts.
type AlertQuery struct {
	Status, AgentID, SourceConnectionID string
	From, To                            *time.Time
	Offset, Limit                       int
}

// Alerts lists an account's alerts, as userID sees them.
func (s *Service) Alerts(ctx context.Context, accountID, userID string, q AlertQuery) ([]Alert, int, error) {
	if q.Status != "" && !slices.Contains(Statuses, q.Status) {
		return nil, 0, invalidIn("query", "status", "must be one of %s", strings.Join(Statuses, ", "))
	}
	return s.repo.list(ctx, accountID, userID, alertFilter{Status: q.Status, AgentID: q.AgentID,
		SourceConnectionID: q.SourceConnectionID, From: q.From, To: q.To}, q.Offset, q.Limit)
}

// Detail is an alert with its thread.
type Detail struct {
	Alert Alert
	AlertThread
}

// Detail returns an alert with its history, comments and subscribers.
func (s *Service) Detail(ctx context.Context, accountID, userID, id string) (Detail, error) {
	a, err := s.repo.alert(ctx, accountID, userID, id)
	if err != nil {
		return Detail{}, err
	}
	th, err := s.repo.thread(ctx, id)
	return Detail{Alert: a, AlertThread: th}, err
}

// ChangeStatus sets an alert's status and tells its subscribers.
func (s *Service) ChangeStatus(ctx context.Context, accountID, userID, id, status, note string) (Detail, error) {
	if !slices.Contains(Statuses, status) {
		return Detail{}, invalid("status", "must be one of %s", strings.Join(Statuses, ", "))
	}
	if len(note) > MaxNoteBytes {
		return Detail{}, invalid("note", "is longer than %d bytes", MaxNoteBytes)
	}
	prev, err := s.repo.setStatus(ctx, accountID, id, status, userID, note)
	if errors.Is(err, store.ErrConflict) {
		return Detail{}, ErrReopened
	}
	if err != nil {
		return Detail{}, err
	}
	if prev != status {
		s.notify(ctx, accountID, id, EventStatusChanged, userID)
	}
	return s.Detail(ctx, accountID, userID, id)
}

// Comment adds a comment and tells the subscribers.
func (s *Service) Comment(ctx context.Context, accountID, userID, id, body string) (Detail, error) {
	if strings.TrimSpace(body) == "" {
		return Detail{}, invalid("body", "must not be empty")
	}
	if len(body) > MaxCommentBytes {
		return Detail{}, invalid("body", "is longer than %d bytes", MaxCommentBytes)
	}
	if userID == "" {
		return Detail{}, invalid("body", "comments need a user; this API key has none")
	}
	if err := s.repo.addComment(ctx, accountID, id, userID, body); err != nil {
		return Detail{}, err
	}
	s.notify(ctx, accountID, id, EventCommented, userID)
	return s.Detail(ctx, accountID, userID, id)
}

// Subscribe subscribes userID to an alert.
func (s *Service) Subscribe(ctx context.Context, accountID, userID, id string) (Detail, error) {
	if userID == "" {
		return Detail{}, invalid("alert_id", "subscriptions need a user; this API key has none")
	}
	if err := s.repo.subscribeTo(ctx, accountID, id, userID); err != nil {
		return Detail{}, err
	}
	return s.Detail(ctx, accountID, userID, id)
}

// Unsubscribe removes userID's subscription.
func (s *Service) Unsubscribe(ctx context.Context, accountID, userID, id string) (Detail, error) {
	if err := s.repo.unsubscribeFrom(ctx, accountID, id, userID); err != nil {
		return Detail{}, err
	}
	return s.Detail(ctx, accountID, userID, id)
}

// Preference is one user's delivery preference for an alert type in an organization.
type Preference struct {
	OrganizationID, AlertType string
	Subscribed, IsOverride    bool
}

// Preferences lists userID's preferences in the organizations they own or
// administer (one, when orgID is set): the opt-out overrides, or with
// includeDefaults every alert type's effective state.
func (s *Service) Preferences(ctx context.Context, userID, orgID string, includeDefaults bool) ([]Preference, error) {
	if userID == "" {
		return []Preference{}, nil
	}
	orgs, err := directory.Organizations(ctx, s.DB, userID)
	if err != nil {
		return nil, err
	}
	out := []Preference{}
	for _, m := range orgs {
		if (orgID != "" && m.AccountID != orgID) || (m.Role != store.RoleOwner && m.Role != store.RoleAdmin) {
			continue
		}
		optOuts, err := s.repo.optOuts(ctx, userID, m.AccountID)
		if err != nil {
			return nil, err
		}
		for _, t := range AllTypes {
			if optOuts[t] {
				out = append(out, Preference{OrganizationID: m.AccountID, AlertType: t, Subscribed: false, IsOverride: true})
			} else if includeDefaults {
				out = append(out, Preference{OrganizationID: m.AccountID, AlertType: t, Subscribed: true})
			}
		}
	}
	return out, nil
}

// SetPreference opts userID out of (or back into) an alert type in an
// organization they own or administer.
func (s *Service) SetPreference(ctx context.Context, userID, orgID, alertType string, subscribed bool) (Preference, error) {
	if !slices.Contains(AllTypes, alertType) {
		return Preference{}, invalidIn("path", "alert_type", "must be one of %s", strings.Join(AllTypes, ", "))
	}
	if userID == "" {
		return Preference{}, ErrForbidden
	}
	role, err := directory.Role(ctx, s.DB, orgID, userID)
	if errors.Is(err, store.ErrNotFound) {
		return Preference{}, store.ErrNotFound
	}
	if err != nil {
		return Preference{}, err
	}
	a, err := directory.GetAccount(ctx, s.DB, orgID)
	if err != nil {
		return Preference{}, err
	}
	if a.Kind != directory.KindOrganization {
		return Preference{}, store.ErrNotFound
	}
	if role != store.RoleOwner && role != store.RoleAdmin {
		return Preference{}, ErrForbidden
	}
	if err := s.repo.setOptOut(ctx, userID, orgID, alertType, !subscribed); err != nil {
		return Preference{}, err
	}
	return Preference{OrganizationID: orgID, AlertType: alertType, Subscribed: subscribed, IsOverride: !subscribed}, nil
}
