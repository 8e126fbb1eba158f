package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/paging"
)

// Model lifecycle alerts of the caller's account.

// ModelAlertResponse is one alert.
type ModelAlertResponse struct {
	ID                 string  `json:"id"`
	AccountID          string  `json:"account_id"`
	AgentID            *string `json:"agent_id" nullable:"true"`
	PromptModelID      string  `json:"prompt_model_id"`
	ModelName          string  `json:"model_name"`
	AlertType          string  `json:"alert_type"`
	Message            string  `json:"message"`
	ReadAt             *string `json:"read_at" nullable:"true"`
	SuccessorModelName *string `json:"successor_model_name" nullable:"true"`
	CreatedAt          string  `json:"created_at"`
}

// ModelAlertListResponse is the legacy body of GET /models/alerts.
type ModelAlertListResponse struct {
	Alerts []ModelAlertResponse `json:"alerts"`
	Total  int                  `json:"total"`
}

// UnreadCountResponse is the body of GET /models/alerts/unread-count.
type UnreadCountResponse struct {
	Count int `json:"count"`
}

func modelAlertResponse(a modelalerts.ModelAlert) ModelAlertResponse {
	r := ModelAlertResponse{ID: a.ID, AccountID: a.AccountID, PromptModelID: a.ModelID, ModelName: a.ModelName,
		AlertType: a.Type, Message: a.Message, CreatedAt: modelsTimestamp(a.CreatedAt)}
	if a.AgentID != "" {
		r.AgentID = &a.AgentID
	}
	if a.ReadAt != nil {
		t := modelsTimestamp(*a.ReadAt)
		r.ReadAt = &t
	}
	if a.SuccessorModelName != "" {
		r.SuccessorModelName = &a.SuccessorModelName
	}
	return r
}

// modelsTimestamp renders a time as the API does: RFC 3339 in UTC.
func modelsTimestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

type listModelAlertsInput struct {
	AgentID    string `query:"agent_id" maxLength:"100" doc:"Filter alerts to a specific agent UUID."`
	UnreadOnly bool   `query:"unread_only" default:"false" doc:"When true, only return unread alerts."`
	Limit      int    `query:"limit" default:"50" minimum:"1" maximum:"100" doc:"Maximum number of alerts to return (1-100)."`
	Offset     int    `query:"offset" default:"0" minimum:"0" maximum:"100000000" doc:"Pagination offset."`
}

func (s *Server) listModelAlerts(ctx context.Context, in *listModelAlertsInput) (*modelsAnyOutput, error) {
	list, total, err := s.modelAlerts().List(ctx, principal(ctx).AccountID,
		modelalerts.Query{AgentID: in.AgentID, UnreadOnly: in.UnreadOnly, Offset: in.Offset, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	items := make([]ModelAlertResponse, len(list))
	for i, a := range list {
		items[i] = modelAlertResponse(a)
	}
	return &modelsAnyOutput{Body: List(ctx, items, PageOf(paging.PageOf(in.Offset, in.Limit), in.Limit, total),
		func(items []ModelAlertResponse, p Pagination) any {
			return ModelAlertListResponse{Alerts: items, Total: p.Total}
		})}, nil
}

type unreadCountOutput struct{ Body UnreadCountResponse }

func (s *Server) modelAlertUnreadCount(ctx context.Context, _ *struct{}) (*unreadCountOutput, error) {
	n, err := s.modelAlerts().UnreadCount(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	return &unreadCountOutput{Body: UnreadCountResponse{Count: n}}, nil
}

type alertIDPath struct {
	AlertID string `path:"alert_id" format:"uuid" doc:"The alert's id."`
}

func (s *Server) markModelAlertRead(ctx context.Context, in *alertIDPath) (*struct{}, error) {
	err := s.modelAlerts().MarkRead(ctx, principal(ctx).AccountID, in.AlertID)
	return nil, fault.Name(err, "Alert")
}

func (s *Server) markAllModelAlertsRead(ctx context.Context, _ *struct{}) (*struct{}, error) {
	_, err := s.modelAlerts().MarkAllRead(ctx, principal(ctx).AccountID)
	return nil, err
}
