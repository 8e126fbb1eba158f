package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Alerts: alert configurations (what raises an alert and who is told),
// the alerts raised, with their status, comments and subscribers, the
// caller's per-organization delivery preferences, and (Agentry
// extensions) a configuration's signed webhook and its delivery log.

// AlertConfig is an alert configuration.
type AlertConfig struct {
	ID                 string         `json:"id"`
	AgentID            *string        `json:"agent_id"`
	SourceConnectionID *string        `json:"source_connection_id"`
	AccountID          string         `json:"account_id"`
	AlertType          string         `json:"alert_type"`
	Enabled            bool           `json:"enabled"`
	Threshold          map[string]any `json:"threshold"`
	CooldownMinutes    int            `json:"cooldown_minutes"`
	LastAlertedAt      *string        `json:"last_alerted_at"`
	DistributionType   string         `json:"distribution_type"`
	RecipientUserIDs   []string       `json:"recipient_user_ids"`
	CreatedAt          *string        `json:"created_at"`
	UpdatedAt          *string        `json:"updated_at"`
}

// CreateAlertConfigRequest creates a configuration; only AlertType is
// required. Name an agent, a source connection, or neither for the account.
type CreateAlertConfigRequest struct {
	AlertType          string         `json:"alert_type"`
	AgentID            string         `json:"agent_id,omitempty"`
	SourceConnectionID string         `json:"source_connection_id,omitempty"`
	Enabled            *bool          `json:"enabled,omitempty"`
	Threshold          map[string]any `json:"threshold,omitempty"`
	CooldownMinutes    *int           `json:"cooldown_minutes,omitempty"`
	DistributionType   string         `json:"distribution_type,omitempty"`
	RecipientUserIDs   []string       `json:"recipient_user_ids,omitempty"`
}

// UpdateAlertConfigRequest changes the fields it sets.
type UpdateAlertConfigRequest struct {
	Enabled          *bool          `json:"enabled,omitempty"`
	Threshold        map[string]any `json:"threshold,omitempty"`
	CooldownMinutes  *int           `json:"cooldown_minutes,omitempty"`
	DistributionType string         `json:"distribution_type,omitempty"`
	RecipientUserIDs []string       `json:"recipient_user_ids,omitempty"`
}

// AlertConfigListOptions filter and page GET /alerts/configs: by agent, by
// source, or (neither) the account-level configs of agent alerts, or with
// Scope "source" those of source alerts.
type AlertConfigListOptions struct {
	AgentID, SourceConnectionID, Scope string
	Page                               int
	Limit                              int // 1–100; the server's 50 when zero
}

const maxAlertListPage = 100

func (o AlertConfigListOptions) query() ListQuery {
	q := ListQuery{Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, maxAlertListPage), Key: "configs", Params: url.Values{}}
	setIf(q.Params, "agent_id", o.AgentID)
	setIf(q.Params, "source_connection_id", o.SourceConnectionID)
	setIf(q.Params, "scope", o.Scope)
	return q
}

func setIf(v url.Values, k, s string) {
	if s != "" {
		v.Set(k, s)
	}
}

// ListAlertConfigs returns one page of configurations.
func (c *Client) ListAlertConfigs(ctx context.Context, o AlertConfigListOptions, opts ...CallOption) (*Page[AlertConfig], error) {
	return ListPage[AlertConfig](ctx, c, "/alerts/configs", o.query(), opts...)
}

// AlertConfigs iterates over every configuration the options select.
func (c *Client) AlertConfigs(ctx context.Context, o AlertConfigListOptions, opts ...CallOption) iter.Seq2[AlertConfig, error] {
	if o.Limit <= 0 {
		o.Limit = maxAlertListPage
	}
	return ListAll[AlertConfig](ctx, c, "/alerts/configs", o.query(), opts...)
}

// CreateAlertConfig creates a configuration.
func (c *Client) CreateAlertConfig(ctx context.Context, req CreateAlertConfigRequest, opts ...CallOption) (*AlertConfig, error) {
	var out AlertConfig
	if err := c.Do(ctx, http.MethodPost, "/alerts/configs", req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAlertConfig returns one configuration.
func (c *Client) GetAlertConfig(ctx context.Context, configID string, opts ...CallOption) (*AlertConfig, error) {
	var out AlertConfig
	if err := c.Do(ctx, http.MethodGet, pathf("/alerts/configs/%s", configID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateAlertConfig changes a configuration.
func (c *Client) UpdateAlertConfig(ctx context.Context, configID string, req UpdateAlertConfigRequest, opts ...CallOption) (*AlertConfig, error) {
	var out AlertConfig
	if err := c.Do(ctx, http.MethodPatch, pathf("/alerts/configs/%s", configID), req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteAlertConfig deletes a configuration; the alerts it raised stay.
func (c *Client) DeleteAlertConfig(ctx context.Context, configID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/alerts/configs/%s", configID), nil, nil, opts...)
}

// AlertWebhook is where a configuration's alerts are posted (extension).
type AlertWebhook struct {
	AlertConfigID string  `json:"alert_config_id"`
	URL           *string `json:"url"`
	SecretName    *string `json:"secret_name"`
	UpdatedAt     string  `json:"updated_at"`
}

// SetAlertWebhook posts a configuration's alert events to url, signed with
// the account secret secretName (an Agentry extension; owner or admin).
// Check deliveries with VerifyAlertWebhook.
func (c *Client) SetAlertWebhook(ctx context.Context, configID, webhookURL, secretName string, opts ...CallOption) (*AlertWebhook, error) {
	var out AlertWebhook
	body := map[string]string{"url": webhookURL, "secret_name": secretName}
	if err := c.Do(ctx, http.MethodPut, pathf("/alerts/configs/%s/webhook", configID), body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAlertWebhook returns a configuration's webhook (URL nil when none).
func (c *Client) GetAlertWebhook(ctx context.Context, configID string, opts ...CallOption) (*AlertWebhook, error) {
	var out AlertWebhook
	if err := c.Do(ctx, http.MethodGet, pathf("/alerts/configs/%s/webhook", configID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteAlertWebhook stops posting a configuration's alerts.
func (c *Client) DeleteAlertWebhook(ctx context.Context, configID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/alerts/configs/%s/webhook", configID), nil, nil, opts...)
}

// AlertDelivery is one entry of a configuration's delivery log.
type AlertDelivery struct {
	ID             string  `json:"id"`
	AlertID        string  `json:"alert_id"`
	AlertConfigID  *string `json:"alert_config_id"`
	Event          string  `json:"event"`
	Channel        string  `json:"channel"`
	Target         string  `json:"target"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	ResponseStatus *int    `json:"response_status"`
	Error          *string `json:"error"`
	CreatedAt      string  `json:"created_at"`
	UpdatedAt      string  `json:"updated_at"`
}

// ListAlertDeliveries returns one page of a configuration's delivery log,
// newest first (extension).
func (c *Client) ListAlertDeliveries(ctx context.Context, configID string, page, limit int, opts ...CallOption) (*Page[AlertDelivery], error) {
	return ListPage[AlertDelivery](ctx, c, pathf("/alerts/configs/%s/deliveries", configID),
		ListQuery{Paging: PageNumbers, Page: page, Limit: min(limit, maxAlertListPage)}, opts...)
}

// Alert is a raised alert.
type Alert struct {
	ID                     string         `json:"id"`
	AccountID              string         `json:"account_id"`
	AlertConfigID          *string        `json:"alert_config_id"`
	AlertType              string         `json:"alert_type"`
	Title                  string         `json:"title"`
	Description            *string        `json:"description"`
	Status                 string         `json:"status"`
	AgentID                *string        `json:"agent_id"`
	AgentRunID             *string        `json:"agent_run_id"`
	SourceConnectionID     *string        `json:"source_connection_id"`
	SourceConnectionPullID *string        `json:"source_connection_pull_id"`
	MCPClientID            *string        `json:"mcp_client_id"`
	Details                map[string]any `json:"details"`
	SubscriberCount        int            `json:"subscriber_count"`
	CommentCount           int            `json:"comment_count"`
	IsSubscribed           bool           `json:"is_subscribed"`
	CreatedAt              *string        `json:"created_at"`
	UpdatedAt              *string        `json:"updated_at"`
}

// AlertDetail is an alert with its history, comments and subscribers.
type AlertDetail struct {
	Alert   Alert `json:"alert"`
	History []struct {
		ID              string  `json:"id"`
		PreviousStatus  *string `json:"previous_status"`
		NewStatus       string  `json:"new_status"`
		ChangedByUserID *string `json:"changed_by_user_id"`
		ChangedByName   *string `json:"changed_by_name"`
		Note            *string `json:"note"`
		CreatedAt       *string `json:"created_at"`
	} `json:"history"`
	Comments []struct {
		ID        string  `json:"id"`
		UserID    string  `json:"user_id"`
		UserName  *string `json:"user_name"`
		Body      string  `json:"body"`
		CreatedAt *string `json:"created_at"`
	} `json:"comments"`
	Subscribers []struct {
		ID        string  `json:"id"`
		UserID    string  `json:"user_id"`
		UserName  *string `json:"user_name"`
		CreatedAt *string `json:"created_at"`
	} `json:"subscribers"`
}

// AlertListOptions filter and page GET /alerts.
type AlertListOptions struct {
	Status, AgentID, SourceConnectionID string
	TimeFrom, TimeTo                    time.Time // zero: unbounded
	Page                                int
	Limit                               int // 1–100; the server's 20 when zero
}

func (o AlertListOptions) query() ListQuery {
	q := ListQuery{Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, maxAlertListPage), Params: url.Values{}}
	setIf(q.Params, "status", o.Status)
	setIf(q.Params, "agent_id", o.AgentID)
	setIf(q.Params, "source_connection_id", o.SourceConnectionID)
	if !o.TimeFrom.IsZero() {
		q.Params.Set("time_from", o.TimeFrom.UTC().Format(time.RFC3339Nano))
	}
	if !o.TimeTo.IsZero() {
		q.Params.Set("time_to", o.TimeTo.UTC().Format(time.RFC3339Nano))
	}
	return q
}

// ListAlerts returns one page of the account's alerts, newest first.
func (c *Client) ListAlerts(ctx context.Context, o AlertListOptions, opts ...CallOption) (*Page[Alert], error) {
	return ListPage[Alert](ctx, c, "/alerts", o.query(), opts...)
}

// Alerts iterates over every alert the options select.
func (c *Client) Alerts(ctx context.Context, o AlertListOptions, opts ...CallOption) iter.Seq2[Alert, error] {
	if o.Limit <= 0 {
		o.Limit = maxAlertListPage
	}
	return ListAll[Alert](ctx, c, "/alerts", o.query(), opts...)
}

func (c *Client) alertDetail(ctx context.Context, method, path string, body any, opts []CallOption) (*AlertDetail, error) {
	var out AlertDetail
	if err := c.Do(ctx, method, path, body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAlert returns an alert with its history, comments and subscribers.
func (c *Client) GetAlert(ctx context.Context, alertID string, opts ...CallOption) (*AlertDetail, error) {
	return c.alertDetail(ctx, http.MethodGet, pathf("/alerts/%s", alertID), nil, opts)
}

// SetAlertStatus moves an alert to triggered, acknowledged, resolved or
// dismissed, with an optional note.
func (c *Client) SetAlertStatus(ctx context.Context, alertID, status, note string, opts ...CallOption) (*AlertDetail, error) {
	body := map[string]any{"status": status}
	if note != "" {
		body["note"] = note
	}
	return c.alertDetail(ctx, http.MethodPost, pathf("/alerts/%s/status", alertID), body, opts)
}

// CommentOnAlert adds a comment; subscribers are told.
func (c *Client) CommentOnAlert(ctx context.Context, alertID, body string, opts ...CallOption) (*AlertDetail, error) {
	return c.alertDetail(ctx, http.MethodPost, pathf("/alerts/%s/comments", alertID), map[string]string{"body": body}, opts)
}

// SubscribeToAlert subscribes the caller to an alert's notifications.
func (c *Client) SubscribeToAlert(ctx context.Context, alertID string, opts ...CallOption) (*AlertDetail, error) {
	return c.alertDetail(ctx, http.MethodPost, pathf("/alerts/%s/subscribe", alertID), nil, opts)
}

// UnsubscribeFromAlert ends the caller's subscription.
func (c *Client) UnsubscribeFromAlert(ctx context.Context, alertID string, opts ...CallOption) (*AlertDetail, error) {
	return c.alertDetail(ctx, http.MethodPost, pathf("/alerts/%s/unsubscribe", alertID), nil, opts)
}

// AlertPreference is the caller's delivery preference for one alert type
// in one organization.
type AlertPreference struct {
	OrganizationID string `json:"organization_id"`
	AlertType      string `json:"alert_type"`
	Subscribed     bool   `json:"subscribed"`
	IsOverride     bool   `json:"is_override"`
}

// ListAlertPreferences lists the caller's preferences in the organizations
// they own or administer (organizationID "" for all): the opt-outs, or with
// includeDefaults every type's effective state.
func (c *Client) ListAlertPreferences(ctx context.Context, organizationID string, includeDefaults bool, opts ...CallOption) ([]AlertPreference, error) {
	q := url.Values{}
	setIf(q, "organization_id", organizationID)
	if includeDefaults {
		q.Set("include_defaults", "true")
	}
	// {preferences, total}, or {data, pagination} from 2026-07-27.
	var raw json.RawMessage
	if err := c.Do(ctx, http.MethodGet, "/alerts/organization-preferences/list", nil, &raw, append([]CallOption{WithQuery(q)}, opts...)...); err != nil {
		return nil, err
	}
	p, err := decodePage[AlertPreference](raw, "preferences")
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// SetAlertPreference opts the caller out of (subscribed false) or back into
// an alert type in an organization.
func (c *Client) SetAlertPreference(ctx context.Context, organizationID, alertType string, subscribed bool, opts ...CallOption) (*AlertPreference, error) {
	var out AlertPreference
	if err := c.Do(ctx, http.MethodPatch, pathf("/alerts/organization-preferences/%s/%s", organizationID, alertType),
		map[string]bool{"subscribed": subscribed}, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// AlertSignatureHeader carries an alert webhook's signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">".
const AlertSignatureHeader = "Service-Signature"

// ErrAlertSignature is a webhook whose signature does not verify.
var ErrAlertSignature = errors.New("alert webhook signature does not verify")

// VerifyAlertWebhook checks an alert webhook a receiver got: the signature
// header against the raw body and the secret the configuration names, and
// that it was signed within tolerance of now (so an old delivery cannot be
// replayed).
func VerifyAlertWebhook(secret []byte, signatureHeader string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(signatureHeader, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return ErrAlertSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrAlertSignature
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts + "."))
	m.Write(body)
	if !hmac.Equal([]byte(sig), []byte(hex.EncodeToString(m.Sum(nil)))) {
		return ErrAlertSignature
	}
	return nil
}
