package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
)

// Alerts: configurations, alerts and their threads, organization delivery
// preferences; and, as extensions, a configuration's webhook and its
// delivery log.

// AlertConfigResponse is a configuration.
type AlertConfigResponse struct {
	ID                 string         `json:"id"`
	AgentID            *string        `json:"agent_id" nullable:"true"`
	SourceConnectionID *string        `json:"source_connection_id" nullable:"true"`
	AccountID          string         `json:"account_id"`
	AlertType          string         `json:"alert_type"`
	Enabled            bool           `json:"enabled"`
	Threshold          map[string]any `json:"threshold" nullable:"true"`
	CooldownMinutes    int            `json:"cooldown_minutes"`
	LastAlertedAt      *string        `json:"last_alerted_at" nullable:"true"`
	DistributionType   string         `json:"distribution_type"`
	RecipientUserIDs   []string       `json:"recipient_user_ids"`
	CreatedAt          *string        `json:"created_at" nullable:"true"`
	UpdatedAt          *string        `json:"updated_at" nullable:"true"`
}

// AlertConfigListResponse is GET /alerts/configs before 2026-07-27.
type AlertConfigListResponse struct {
	Configs []AlertConfigResponse `json:"configs"`
	Total   int                   `json:"total"`
}

// CreateAlertConfigRequest is the body of POST /alerts/configs.
type CreateAlertConfigRequest struct {
	AlertType          string         `json:"alert_type" maxLength:"64" doc:"Alert type"`
	AgentID            *string        `json:"agent_id,omitempty" nullable:"true" maxLength:"64" doc:"Agent ID (for agent alerts)"`
	SourceConnectionID *string        `json:"source_connection_id,omitempty" nullable:"true" maxLength:"64" doc:"Source connection ID (for source alerts)"`
	Enabled            *bool          `json:"enabled,omitempty" doc:"Whether the alert config is enabled (default true)"`
	Threshold          map[string]any `json:"threshold,omitempty" nullable:"true" doc:"Threshold configuration (see docs/alerts.md for each type's keys)"`
	CooldownMinutes    *int           `json:"cooldown_minutes,omitempty" doc:"Cooldown period in minutes (default 60)"`
	DistributionType   *string        `json:"distribution_type,omitempty" maxLength:"32" doc:"Distribution type (owner, owner_admins, selected_members)"`
	RecipientUserIDs   []string       `json:"recipient_user_ids,omitempty" nullable:"true" maxItems:"100" doc:"User IDs for selected_members distribution"`
}

// UpdateAlertConfigRequest is the body of PATCH /alerts/configs/{config_id}.
type UpdateAlertConfigRequest struct {
	Enabled          *bool          `json:"enabled,omitempty" nullable:"true" doc:"Whether the alert config is enabled"`
	Threshold        map[string]any `json:"threshold,omitempty" nullable:"true" doc:"Threshold configuration"`
	CooldownMinutes  *int           `json:"cooldown_minutes,omitempty" nullable:"true" doc:"Cooldown period in minutes"`
	DistributionType *string        `json:"distribution_type,omitempty" nullable:"true" maxLength:"32" doc:"Distribution type"`
	RecipientUserIDs []string       `json:"recipient_user_ids,omitempty" nullable:"true" maxItems:"100" doc:"User IDs for selected_members distribution"`
}

// AlertResponse is an alert.
type AlertResponse struct {
	ID                     string  `json:"id"`
	AccountID              string  `json:"account_id"`
	AlertConfigID          *string `json:"alert_config_id" nullable:"true"`
	AlertType              string  `json:"alert_type"`
	Title                  string  `json:"title"`
	Description            *string `json:"description" nullable:"true"`
	Status                 string  `json:"status"`
	AgentID                *string `json:"agent_id" nullable:"true"`
	AgentRunID             *string `json:"agent_run_id" nullable:"true"`
	SourceConnectionID     *string `json:"source_connection_id" nullable:"true"`
	SourceConnectionPullID *string `json:"source_connection_pull_id" nullable:"true"`
	MCPClientID            *string `json:"mcp_client_id" nullable:"true"`
	Details                any     `json:"details,omitempty"`
	SubscriberCount        int     `json:"subscriber_count"`
	CommentCount           int     `json:"comment_count"`
	IsSubscribed           bool    `json:"is_subscribed"`
	CreatedAt              *string `json:"created_at" nullable:"true"`
	UpdatedAt              *string `json:"updated_at" nullable:"true"`
}

// AlertHistoryEntryResponse is one status change.
type AlertHistoryEntryResponse struct {
	ID              string  `json:"id"`
	PreviousStatus  *string `json:"previous_status" nullable:"true"`
	NewStatus       string  `json:"new_status"`
	ChangedByUserID *string `json:"changed_by_user_id" nullable:"true"`
	ChangedByName   *string `json:"changed_by_name" nullable:"true"`
	Note            *string `json:"note" nullable:"true"`
	CreatedAt       *string `json:"created_at" nullable:"true"`
}

// AlertCommentResponse is a comment.
type AlertCommentResponse struct {
	ID        string  `json:"id"`
	UserID    string  `json:"user_id"`
	UserName  *string `json:"user_name" nullable:"true"`
	Body      string  `json:"body"`
	CreatedAt *string `json:"created_at" nullable:"true"`
}

// AlertSubscriberResponse is a subscriber.
type AlertSubscriberResponse struct {
	ID        string  `json:"id"`
	UserID    string  `json:"user_id"`
	UserName  *string `json:"user_name" nullable:"true"`
	CreatedAt *string `json:"created_at" nullable:"true"`
}

// AlertDetailResponse is an alert with its thread.
type AlertDetailResponse struct {
	Alert       AlertResponse               `json:"alert"`
	History     []AlertHistoryEntryResponse `json:"history"`
	Comments    []AlertCommentResponse      `json:"comments"`
	Subscribers []AlertSubscriberResponse   `json:"subscribers"`
}

// AddAlertCommentRequest is the body of POST /alerts/{alert_id}/comments.
type AddAlertCommentRequest struct {
	Body string `json:"body" maxLength:"10000" doc:"Comment text"`
}

// ChangeAlertStatusRequest is the body of POST /alerts/{alert_id}/status.
type ChangeAlertStatusRequest struct {
	Status string  `json:"status" maxLength:"32" doc:"New alert status"`
	Note   *string `json:"note,omitempty" nullable:"true" maxLength:"2000" doc:"Optional note"`
}

// OrganizationAlertPreferenceResponse is one preference.
type OrganizationAlertPreferenceResponse struct {
	OrganizationID string `json:"organization_id"`
	AlertType      string `json:"alert_type"`
	Subscribed     bool   `json:"subscribed"`
	IsOverride     bool   `json:"is_override"`
}

// OrganizationAlertPreferenceListResponse lists preferences.
type OrganizationAlertPreferenceListResponse struct {
	Preferences []OrganizationAlertPreferenceResponse `json:"preferences"`
	Total       int                                   `json:"total"`
}

// UpdateOrganizationAlertPreferenceRequest is the body of the preference PATCH.
type UpdateOrganizationAlertPreferenceRequest struct {
	Subscribed bool `json:"subscribed" doc:"Whether the user should receive this alert for the organization"`
}

// AlertWebhookRequest is the body of PUT /alerts/configs/{config_id}/webhook (extension).
type AlertWebhookRequest struct {
	URL        string `json:"url" minLength:"1" maxLength:"2048" doc:"Where each alert event of the config is POSTed (http or https)."`
	SecretName string `json:"secret_name" minLength:"1" maxLength:"64" doc:"The account secret (PUT /secrets/{name}) whose value keys the HMAC-SHA256 signature."`
}

// AlertWebhookResponse is a configuration's webhook (extension).
type AlertWebhookResponse struct {
	AlertConfigID string  `json:"alert_config_id"`
	URL           *string `json:"url" nullable:"true"`
	SecretName    *string `json:"secret_name" nullable:"true"`
	UpdatedAt     string  `json:"updated_at"`
}

// AlertDeliveryResponse is one entry of the delivery log (extension).
type AlertDeliveryResponse struct {
	ID             string  `json:"id"`
	AlertID        string  `json:"alert_id"`
	AlertConfigID  *string `json:"alert_config_id" nullable:"true"`
	Event          string  `json:"event" doc:"alert.triggered, alert.status_changed or alert.commented"`
	Channel        string  `json:"channel" doc:"webhook or email"`
	Target         string  `json:"target" doc:"The URL, or the recipient's user id"`
	Status         string  `json:"status" doc:"pending, delivered, failed or skipped"`
	Attempts       int     `json:"attempts"`
	ResponseStatus *int    `json:"response_status" nullable:"true"`
	Error          *string `json:"error" nullable:"true" doc:"Why the last attempt failed, or why the delivery was skipped"`
	CreatedAt      string  `json:"created_at"`
	UpdatedAt      string  `json:"updated_at"`
}

// Descriptions of the extension operations (routes in api.go).
const (
	setAlertWebhookDoc = "Posts every event of the config's alerts (triggered, status changed, commented) to a URL, as JSON " +
		"signed with HMAC-SHA256: header Service-Signature: t=<unix seconds>,v1=<hex MAC of \"<t>.<body>\"> keyed with the " +
		"named account secret. Failed deliveries are retried with backoff (1, 2, 4, 8, 16 s). The address must be public unless " +
		"the operator allows private webhooks."
	getAlertWebhookDoc    = "The config's webhook URL and the name of the secret that signs it (never its value)."
	deleteAlertWebhookDoc = "Stops posting the config's alerts."
	listDeliveriesDoc     = "The delivery log of the config's alerts, newest first: each webhook and e-mail delivery with its " +
		"status, attempts and last error. E-mail deliveries are logged as skipped, with the reason, while the server has no " +
		"outbound mail for alerts."
)

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func tsPtr(t time.Time) *string {
	s := modelsTimestamp(t)
	return &s
}

func alertConfigResponse(c alerts.AlertConfig) AlertConfigResponse {
	r := AlertConfigResponse{ID: c.ID, AgentID: ptr(c.AgentID), SourceConnectionID: ptr(c.SourceConnectionID), AccountID: c.AccountID,
		AlertType: c.AlertType, Enabled: c.Enabled, CooldownMinutes: c.CooldownMinutes, DistributionType: c.DistributionType,
		RecipientUserIDs: c.RecipientUserIDs, CreatedAt: tsPtr(c.CreatedAt), UpdatedAt: tsPtr(c.UpdatedAt)}
	if r.RecipientUserIDs == nil {
		r.RecipientUserIDs = []string{}
	}
	if len(c.Threshold) > 0 {
		_ = json.Unmarshal(c.Threshold, &r.Threshold)
	}
	if c.LastAlertedAt != nil {
		r.LastAlertedAt = tsPtr(*c.LastAlertedAt)
	}
	return r
}

func alertResponse(a alerts.Alert) AlertResponse {
	return AlertResponse{ID: a.ID, AccountID: a.AccountID, AlertConfigID: ptr(a.ConfigID), AlertType: a.Type, Title: a.Title,
		Description: ptr(a.Description), Status: a.Status, AgentID: ptr(a.AgentID), AgentRunID: ptr(a.RunID),
		SourceConnectionID: ptr(a.SourceConnectionID), SourceConnectionPullID: ptr(a.SourcePullID), Details: a.Details,
		SubscriberCount: a.SubscriberCount, CommentCount: a.CommentCount, IsSubscribed: a.IsSubscribed,
		CreatedAt: tsPtr(a.CreatedAt), UpdatedAt: tsPtr(a.UpdatedAt)}
}

func alertDetailResponse(d alerts.Detail) AlertDetailResponse {
	r := AlertDetailResponse{Alert: alertResponse(d.Alert), History: []AlertHistoryEntryResponse{},
		Comments: []AlertCommentResponse{}, Subscribers: []AlertSubscriberResponse{}}
	for _, h := range d.History {
		r.History = append(r.History, AlertHistoryEntryResponse{ID: h.ID, PreviousStatus: ptr(h.PreviousStatus), NewStatus: h.NewStatus,
			ChangedByUserID: ptr(h.ChangedByUserID), ChangedByName: ptr(h.ChangedByName), Note: ptr(h.Note), CreatedAt: tsPtr(h.CreatedAt)})
	}
	for _, c := range d.Comments {
		r.Comments = append(r.Comments, AlertCommentResponse{ID: c.ID, UserID: c.UserID, UserName: ptr(c.UserName), Body: c.Body,
			CreatedAt: tsPtr(c.CreatedAt)})
	}
	for _, s := range d.Subscribers {
		r.Subscribers = append(r.Subscribers, AlertSubscriberResponse{ID: s.ID, UserID: s.UserID, UserName: ptr(s.UserName),
			CreatedAt: tsPtr(s.CreatedAt)})
	}
	return r
}

type listAlertsInput struct {
	Page               int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number"`
	Limit              int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page"`
	Status             string `query:"status" maxLength:"32" doc:"Filter by alert status"`
	AgentID            string `query:"agent_id" maxLength:"64" doc:"Filter by agent ID"`
	SourceConnectionID string `query:"source_connection_id" maxLength:"64" doc:"Filter by source connection ID"`
	TimeFrom           string `query:"time_from" maxLength:"64" doc:"From (ISO 8601)"`
	TimeTo             string `query:"time_to" maxLength:"64" doc:"To (ISO 8601)"`
}

type anyOutput struct{ Body any }

// parseQueryTime reads an ISO 8601 query time ("" is none).
func parseQueryTime(name, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return &t, nil
		}
	}
	return nil, Invalid([]any{"query", name}, "Input should be a valid datetime (ISO 8601)", "datetime_parsing")
}

func (s *Server) listAlerts(ctx context.Context, in *listAlertsInput) (*anyOutput, error) {
	from, err := parseQueryTime("time_from", in.TimeFrom)
	if err != nil {
		return nil, err
	}
	to, err := parseQueryTime("time_to", in.TimeTo)
	if err != nil {
		return nil, err
	}
	p := principal(ctx)
	list, total, err := s.deps.Alerts.Alerts(ctx, p.AccountID, p.UserID, alerts.AlertQuery{Status: in.Status, AgentID: in.AgentID,
		SourceConnectionID: in.SourceConnectionID, From: from, To: to, Offset: paging.Offset(in.Page, in.Limit), Limit: in.Limit})
	if err != nil {
		return nil, fault.Name(err, "list")
	}
	items := make([]AlertResponse, len(list))
	for i, a := range list {
		items[i] = alertResponse(a)
	}
	// The contract answers this list in the canonical envelope at every version.
	return &anyOutput{Body: Envelope[AlertResponse]{Data: items, Pagination: PageOf(in.Page, in.Limit, total)}}, nil
}

type listAlertConfigsInput struct {
	AgentID            string `query:"agent_id" maxLength:"64" doc:"Filter by agent ID"`
	SourceConnectionID string `query:"source_connection_id" maxLength:"64" doc:"Filter by source connection ID"`
	Scope              string `query:"scope" maxLength:"16" doc:"Set to 'source' to list account-level source alert configs"`
	Page               int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number"`
	Limit              int    `query:"limit" default:"50" minimum:"1" maximum:"100" doc:"Items per page"`
}

func (s *Server) listAlertConfigs(ctx context.Context, in *listAlertConfigsInput) (*anyOutput, error) {
	list, total, err := s.deps.Alerts.Configs(ctx, principal(ctx).AccountID, alerts.ConfigQuery{AgentID: in.AgentID,
		SourceConnectionID: in.SourceConnectionID, Scope: in.Scope, Offset: paging.Offset(in.Page, in.Limit), Limit: in.Limit})
	if err != nil {
		return nil, fault.Name(err, "list")
	}
	items := make([]AlertConfigResponse, len(list))
	for i, c := range list {
		items[i] = alertConfigResponse(c)
	}
	return &anyOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), func(items []AlertConfigResponse, p Pagination) any {
		return AlertConfigListResponse{Configs: items, Total: p.Total}
	})}, nil
}

// rawThreshold turns a decoded threshold back into JSON (nil: not given).
func rawThreshold(m map[string]any) json.RawMessage {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

type createAlertConfigInput struct {
	Body CreateAlertConfigRequest
}

type alertConfigOutput struct{ Body AlertConfigResponse }

func (s *Server) createAlertConfig(ctx context.Context, in *createAlertConfigInput) (*alertConfigOutput, error) {
	b := in.Body
	ci := alerts.ConfigInput{AlertType: b.AlertType, AgentID: b.AgentID, SourceConnectionID: b.SourceConnectionID, Enabled: b.Enabled,
		Threshold: rawThreshold(b.Threshold), CooldownMinutes: b.CooldownMinutes, DistributionType: b.DistributionType}
	if b.RecipientUserIDs != nil {
		ci.RecipientUserIDs = &b.RecipientUserIDs
	}
	c, err := s.deps.Alerts.CreateConfig(ctx, principal(ctx).AccountID, ci)
	if err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return &alertConfigOutput{Body: alertConfigResponse(c)}, nil
}

type alertConfigPath struct {
	ConfigID string `path:"config_id" format:"uuid" doc:"The alert config's id."`
}

func (s *Server) getAlertConfig(ctx context.Context, in *alertConfigPath) (*alertConfigOutput, error) {
	c, err := s.deps.Alerts.Config(ctx, principal(ctx).AccountID, in.ConfigID)
	if err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return &alertConfigOutput{Body: alertConfigResponse(c)}, nil
}

type updateAlertConfigInput struct {
	ConfigID string `path:"config_id" format:"uuid" doc:"The alert config's id."`
	Body     UpdateAlertConfigRequest
}

func (s *Server) updateAlertConfig(ctx context.Context, in *updateAlertConfigInput) (*alertConfigOutput, error) {
	b := in.Body
	ci := alerts.ConfigInput{Enabled: b.Enabled, Threshold: rawThreshold(b.Threshold), CooldownMinutes: b.CooldownMinutes,
		DistributionType: b.DistributionType}
	if b.RecipientUserIDs != nil {
		ci.RecipientUserIDs = &b.RecipientUserIDs
	}
	c, err := s.deps.Alerts.UpdateConfig(ctx, principal(ctx).AccountID, in.ConfigID, ci)
	if err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return &alertConfigOutput{Body: alertConfigResponse(c)}, nil
}

func (s *Server) deleteAlertConfig(ctx context.Context, in *alertConfigPath) (*struct{}, error) {
	if err := s.deps.Alerts.DeleteConfig(ctx, principal(ctx).AccountID, in.ConfigID); err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return nil, nil
}

type alertPath struct {
	AlertID string `path:"alert_id" format:"uuid" doc:"The alert's id."`
}

type alertDetailOutput struct{ Body AlertDetailResponse }

func detailOut(d alerts.Detail, err error) (*alertDetailOutput, error) {
	if err != nil {
		return nil, fault.Name(err, "Alert")
	}
	return &alertDetailOutput{Body: alertDetailResponse(d)}, nil
}

func (s *Server) getAlertDetail(ctx context.Context, in *alertPath) (*alertDetailOutput, error) {
	p := principal(ctx)
	return detailOut(s.deps.Alerts.Detail(ctx, p.AccountID, p.UserID, in.AlertID))
}

type addAlertCommentInput struct {
	AlertID string `path:"alert_id" format:"uuid" doc:"The alert's id."`
	Body    AddAlertCommentRequest
}

func (s *Server) addAlertComment(ctx context.Context, in *addAlertCommentInput) (*alertDetailOutput, error) {
	p := principal(ctx)
	return detailOut(s.deps.Alerts.Comment(ctx, p.AccountID, p.UserID, in.AlertID, in.Body.Body))
}

type changeAlertStatusInput struct {
	AlertID string `path:"alert_id" format:"uuid" doc:"The alert's id."`
	Body    ChangeAlertStatusRequest
}

func (s *Server) changeAlertStatus(ctx context.Context, in *changeAlertStatusInput) (*alertDetailOutput, error) {
	p := principal(ctx)
	note := ""
	if in.Body.Note != nil {
		note = *in.Body.Note
	}
	return detailOut(s.deps.Alerts.ChangeStatus(ctx, p.AccountID, p.UserID, in.AlertID, in.Body.Status, note))
}

func (s *Server) subscribeToAlert(ctx context.Context, in *alertPath) (*alertDetailOutput, error) {
	p := principal(ctx)
	return detailOut(s.deps.Alerts.Subscribe(ctx, p.AccountID, p.UserID, in.AlertID))
}

func (s *Server) unsubscribeFromAlert(ctx context.Context, in *alertPath) (*alertDetailOutput, error) {
	p := principal(ctx)
	return detailOut(s.deps.Alerts.Unsubscribe(ctx, p.AccountID, p.UserID, in.AlertID))
}

type listOrgPreferencesInput struct {
	OrganizationID  string `query:"organization_id" format:"uuid" doc:"Optional organization filter"`
	IncludeDefaults bool   `query:"include_defaults" default:"false" doc:"Include default subscribed entries for all alert types"`
}

type orgPreferenceListOutput struct {
	Body any // OrganizationAlertPreferenceListResponse before 2026-07-27
}

func (s *Server) listOrgAlertPreferences(ctx context.Context, in *listOrgPreferencesInput) (*orgPreferenceListOutput, error) {
	prefs, err := s.deps.Alerts.Preferences(ctx, principal(ctx).UserID, in.OrganizationID, in.IncludeDefaults)
	if err != nil {
		return nil, err
	}
	out := OrganizationAlertPreferenceListResponse{Preferences: make([]OrganizationAlertPreferenceResponse, len(prefs)), Total: len(prefs)}
	for i, p := range prefs {
		out.Preferences[i] = OrganizationAlertPreferenceResponse(p)
	}
	return &orgPreferenceListOutput{Body: List(ctx, out.Preferences, PageOf(1, max(len(prefs), 1), len(prefs)),
		func([]OrganizationAlertPreferenceResponse, Pagination) any { return out })}, nil
}

type updateOrgPreferenceInput struct {
	OrganizationID string `path:"organization_id" format:"uuid" doc:"The organization's id."`
	AlertType      string `path:"alert_type" maxLength:"64" doc:"The alert type."`
	Body           UpdateOrganizationAlertPreferenceRequest
}

type orgPreferenceOutput struct {
	Body OrganizationAlertPreferenceResponse
}

func (s *Server) updateOrgAlertPreference(ctx context.Context, in *updateOrgPreferenceInput) (*orgPreferenceOutput, error) {
	p, err := s.deps.Alerts.SetPreference(ctx, principal(ctx).UserID, in.OrganizationID, in.AlertType, in.Body.Subscribed)
	if err != nil {
		return nil, fault.Name(err, "preference")
	}
	return &orgPreferenceOutput{Body: OrganizationAlertPreferenceResponse(p)}, nil
}

func alertWebhookResponse(c alerts.AlertConfig) AlertWebhookResponse {
	return AlertWebhookResponse{AlertConfigID: c.ID, URL: ptr(c.WebhookURL), SecretName: ptr(c.WebhookSecretName),
		UpdatedAt: modelsTimestamp(c.UpdatedAt)}
}

type alertWebhookOutput struct{ Body AlertWebhookResponse }

type setAlertWebhookInput struct {
	ConfigID string `path:"config_id" format:"uuid" doc:"The alert config's id."`
	Body     AlertWebhookRequest
}

func (s *Server) setAlertWebhook(ctx context.Context, in *setAlertWebhookInput) (*alertWebhookOutput, error) {
	p := principal(ctx)
	c, err := s.deps.Alerts.SetWebhook(ctx, p.AccountID, in.ConfigID, in.Body.URL, in.Body.SecretName)
	if err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return &alertWebhookOutput{Body: alertWebhookResponse(c)}, nil
}

func (s *Server) getAlertWebhook(ctx context.Context, in *alertConfigPath) (*alertWebhookOutput, error) {
	c, err := s.deps.Alerts.Config(ctx, principal(ctx).AccountID, in.ConfigID)
	if err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return &alertWebhookOutput{Body: alertWebhookResponse(c)}, nil
}

func (s *Server) deleteAlertWebhook(ctx context.Context, in *alertConfigPath) (*struct{}, error) {
	p := principal(ctx)
	if err := s.deps.Alerts.ClearWebhook(ctx, p.AccountID, in.ConfigID); err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	return nil, nil
}

type listDeliveriesInput struct {
	ConfigID string `path:"config_id" format:"uuid" doc:"The alert config's id."`
	Page     int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number"`
	Limit    int    `query:"limit" default:"50" minimum:"1" maximum:"100" doc:"Items per page"`
}

func (s *Server) listAlertDeliveries(ctx context.Context, in *listDeliveriesInput) (*anyOutput, error) {
	list, total, err := s.deps.Alerts.Deliveries(ctx, principal(ctx).AccountID, in.ConfigID, paging.Offset(in.Page, in.Limit), in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Alert config")
	}
	items := make([]AlertDeliveryResponse, len(list))
	for i, d := range list {
		r := AlertDeliveryResponse{ID: d.ID, AlertID: d.AlertID, AlertConfigID: ptr(d.ConfigID), Event: d.Event, Channel: d.Channel,
			Target: d.Target, Status: d.Status, Attempts: d.Attempts, Error: ptr(d.Error), CreatedAt: modelsTimestamp(d.CreatedAt),
			UpdatedAt: modelsTimestamp(d.UpdatedAt)}
		if d.ResponseStatus != 0 {
			code := d.ResponseStatus
			r.ResponseStatus = &code
		}
		items[i] = r
	}
	return &anyOutput{Body: Envelope[AlertDeliveryResponse]{Data: items, Pagination: PageOf(in.Page, in.Limit, total)}}, nil
}
