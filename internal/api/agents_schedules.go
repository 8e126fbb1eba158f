package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/fault"
	"github.com/danielgtaylor/huma/v2"
)

// The schedules extension: list, add, change and remove the cron schedules
// of an agent whose trigger is schedule (docs/schedules.md).

// ScheduleResponse is one schedule of an agent.
type ScheduleResponse struct {
	ID             string     `json:"id" doc:"The schedule's id."`
	AgentID        string     `json:"agent_id"`
	CronExpression string     `json:"cron_expression" doc:"Five-field cron (minute hour day-of-month month day-of-week) or a descriptor such as @daily."`
	Timezone       string     `json:"timezone" doc:"IANA time zone the expression is read in."`
	Input          *string    `json:"input" doc:"The input of the runs it starts; null for the trigger's default input."`
	Enabled        bool       `json:"enabled"`
	NextFireAt     *time.Time `json:"next_fire_at" doc:"When the schedule next fires (UTC); null while disabled."`
	CreatedAt      time.Time  `json:"created_at"`
}

// CreateScheduleRequest adds a schedule.
type CreateScheduleRequest struct {
	CronExpression string  `json:"cron_expression" minLength:"1" maxLength:"200" doc:"Five-field cron or a descriptor (@hourly, @daily, @weekly, @monthly, @every 1h)."`
	Timezone       *string `json:"timezone,omitempty" maxLength:"64" doc:"IANA time zone such as Europe/Paris; UTC when left out."`
	Input          *string `json:"input,omitempty" doc:"Input of the runs it starts (at most 32 KiB); the trigger's default input when left out."`
	Enabled        *bool   `json:"enabled,omitempty" doc:"Whether it fires; true when left out."`
}

// UpdateScheduleRequest changes the fields it carries.
type UpdateScheduleRequest struct {
	CronExpression *string `json:"cron_expression,omitempty" minLength:"1" maxLength:"200"`
	Timezone       *string `json:"timezone,omitempty" maxLength:"64"`
	Input          *string `json:"input,omitempty" doc:"New input; an empty string removes it."`
	Enabled        *bool   `json:"enabled,omitempty"`
}

type scheduleOutput struct{ Body ScheduleResponse }

type listSchedulesOutput struct{ Body any }

type createScheduleInput struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Body    CreateScheduleRequest
}

type scheduleIDPath struct {
	AgentID    string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	ScheduleID string `path:"schedule_id" format:"uuid" doc:"The schedule's id."`
}

type updateScheduleInput struct {
	AgentID    string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	ScheduleID string `path:"schedule_id" format:"uuid" doc:"The schedule's id."`
	Body       UpdateScheduleRequest
}

const schedulesDoc = "An agent whose trigger is schedule starts a run each time one of its schedules fires. " +
	"A schedule is a cron expression read in an IANA time zone, with an optional input for the runs it starts; " +
	"an agent has at most 20. Agents with another trigger answer 409."

func withDesc(o huma.Operation, d string) huma.Operation { o.Description = d; return o }

func (s *Server) listAgentSchedules(ctx context.Context, in *agentIDPath) (*listSchedulesOutput, error) {
	list, _, err := s.agents().Schedules(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]ScheduleResponse, len(list))
	for i, sc := range list {
		items[i] = scheduleResponse(sc)
	}
	// A bounded list on one page: the canonical envelope from 2026-07-27,
	// a bare array before.
	return &listSchedulesOutput{Body: List(ctx, items, PageOf(1, max(len(items), agents.MaxSchedulesPerAgent), len(items)),
		func(items []ScheduleResponse, _ Pagination) any { return items })}, nil
}

func (s *Server) createAgentSchedule(ctx context.Context, in *createScheduleInput) (*scheduleOutput, error) {
	b := in.Body
	sc, err := s.agents().AddSchedule(ctx, principal(ctx).AccountID, in.AgentID, agents.ScheduleChange{
		CronExpression: &b.CronExpression, Timezone: b.Timezone, Input: b.Input, Enabled: b.Enabled})
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &scheduleOutput{Body: scheduleResponse(sc)}, nil
}

func (s *Server) updateAgentSchedule(ctx context.Context, in *updateScheduleInput) (*scheduleOutput, error) {
	b := in.Body
	sc, err := s.agents().UpdateSchedule(ctx, principal(ctx).AccountID, in.AgentID, in.ScheduleID, agents.ScheduleChange{
		CronExpression: b.CronExpression, Timezone: b.Timezone, Input: b.Input, Enabled: b.Enabled})
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &scheduleOutput{Body: scheduleResponse(sc)}, nil
}

func (s *Server) deleteAgentSchedule(ctx context.Context, in *scheduleIDPath) (*struct{}, error) {
	if err := s.agents().RemoveSchedule(ctx, principal(ctx).AccountID, in.AgentID, in.ScheduleID); err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return nil, nil
}

func scheduleResponse(sc agents.AgentSchedule) ScheduleResponse {
	return ScheduleResponse{ID: sc.ID, AgentID: sc.AgentID, CronExpression: sc.CronExpression, Timezone: sc.Timezone,
		Input: sc.Input, Enabled: sc.Enabled, NextFireAt: sc.NextFireAt, CreatedAt: sc.CreatedAt}
}
