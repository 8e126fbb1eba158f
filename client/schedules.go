package client

import (
	"context"
	"net/http"
	"time"
)

// Schedules (an Agentry extension): the cron schedules of an agent whose
// trigger is schedule. See docs/schedules.md.

// Schedule is one schedule of an agent.
type Schedule struct {
	ID             string `json:"id"`
	AgentID        string `json:"agent_id"`
	CronExpression string `json:"cron_expression"`
	Timezone       string `json:"timezone"`
	// Input is what the runs it starts receive; nil for the trigger's default.
	Input   *string `json:"input"`
	Enabled bool    `json:"enabled"`
	// NextFireAt is when it next fires; nil while disabled.
	NextFireAt *time.Time `json:"next_fire_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

// CreateScheduleRequest adds a schedule. Timezone is an IANA name (UTC when
// nil); Enabled defaults to true.
type CreateScheduleRequest struct {
	CronExpression string  `json:"cron_expression"`
	Timezone       *string `json:"timezone,omitempty"`
	Input          *string `json:"input,omitempty"`
	Enabled        *bool   `json:"enabled,omitempty"`
}

// UpdateScheduleRequest changes the fields that are set; an empty Input
// removes the input.
type UpdateScheduleRequest struct {
	CronExpression *string `json:"cron_expression,omitempty"`
	Timezone       *string `json:"timezone,omitempty"`
	Input          *string `json:"input,omitempty"`
	Enabled        *bool   `json:"enabled,omitempty"`
}

// ListSchedules returns an agent's schedules in the order they were added
// (GET /agents/{agent_id}/schedules; at most 20, one page).
func (c *Client) ListSchedules(ctx context.Context, agentID string, opts ...CallOption) ([]Schedule, error) {
	p, err := ListPage[Schedule](ctx, c, pathf("/agents/%s/schedules", agentID), ListQuery{Paging: OnePage}, opts...)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// CreateSchedule adds a schedule (POST /agents/{agent_id}/schedules). An
// agent whose trigger is not schedule answers 409.
func (c *Client) CreateSchedule(ctx context.Context, agentID string, in CreateScheduleRequest, opts ...CallOption) (*Schedule, error) {
	var out Schedule
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/%s/schedules", agentID), in, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateSchedule changes a schedule (PUT /agents/{agent_id}/schedules/{schedule_id}).
func (c *Client) UpdateSchedule(ctx context.Context, agentID, scheduleID string, in UpdateScheduleRequest, opts ...CallOption) (*Schedule, error) {
	var out Schedule
	if err := c.Do(ctx, http.MethodPut, pathf("/agents/%s/schedules/%s", agentID, scheduleID), in, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteSchedule removes a schedule (DELETE /agents/{agent_id}/schedules/{schedule_id}).
func (c *Client) DeleteSchedule(ctx context.Context, agentID, scheduleID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/agents/%s/schedules/%s", agentID, scheduleID), nil, nil, opts...)
}
