package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/agents/agentrow"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// The schedules extension: an agent with the schedule trigger has up to
// MaxSchedulesPerAgent cron schedules, each with a time zone and an
// optional run input, listed, added, changed and removed one at a time.

// Limits of the schedules a tenant sets.
const (
	MaxSchedulesPerAgent  = 20
	MaxScheduleInputBytes = 32 << 10
	// MinScheduleInterval is the shortest gap between two fires: an
	// "@every 1s" schedule would start a run on every scheduler tick.
	MinScheduleInterval = time.Minute
)

// Schedule errors the API maps to responses.
var (
	// ErrScheduleNotFound: no such schedule on this agent (404).
	ErrScheduleNotFound error = fault.NotFoundOf("Schedule")
	// ErrNotScheduled: the agent's trigger is not schedule (409).
	ErrNotScheduled error = &fault.Conflict{Err: errors.New("only agents with the schedule trigger fire on schedules")}
	// ErrTooManySchedules: the agent has MaxSchedulesPerAgent already (409).
	ErrTooManySchedules error = &fault.Conflict{Msg: fmt.Sprintf("This agent already has %d schedules, the most an agent may have: remove one first", MaxSchedulesPerAgent)}
)

// AgentSchedule is one schedule as the extension shows it.
type AgentSchedule struct {
	ID             string
	AgentID        string
	CronExpression string
	Timezone       string
	Input          *string
	Enabled        bool
	// NextFireAt is when it next fires; nil while disabled.
	NextFireAt *time.Time
	CreatedAt  time.Time
}

// ScheduleChange is a schedule to add, or the fields to change of one
// (nil leaves a field as it is; on add, CronExpression is required and a
// nil Timezone means UTC). An empty Input removes the input.
type ScheduleChange struct {
	CronExpression *string
	Timezone       *string
	Input          *string
	Enabled        *bool
}

// Schedules lists an agent's schedules in the order they were added, and
// its trigger type.
func (s *Service) Schedules(ctx context.Context, accountID, agentID string) ([]AgentSchedule, string, error) {
	t, err := s.rows().AgentTrigger(ctx, accountID, agentID)
	if err != nil {
		return nil, "", err
	}
	out := make([]AgentSchedule, 0, len(t.Schedules))
	for _, sc := range t.Schedules {
		out = append(out, scheduleView(agentID, sc))
	}
	return out, t.Type, nil
}

// AddSchedule validates and adds a schedule to an agent whose trigger is
// schedule.
func (s *Service) AddSchedule(ctx context.Context, accountID, agentID string, in ScheduleChange) (AgentSchedule, error) {
	t, err := s.rows().AgentTrigger(ctx, accountID, agentID)
	if err != nil {
		return AgentSchedule{}, err
	}
	if t.Type != string(def.TriggerSchedule) {
		return AgentSchedule{}, fmt.Errorf("%w: this agent's trigger is %s; change the trigger (export the agent, set trigger.trigger_type to schedule, and import it) to use schedules", ErrNotScheduled, t.Type)
	}
	if in.CronExpression == nil {
		return AgentSchedule{}, invalid("cron_expression is required", "missing", "body", "cron_expression")
	}
	sc := Schedule{Enabled: true}
	if err := s.applyScheduleChange(&sc, in); err != nil {
		return AgentSchedule{}, err
	}
	sc, err = s.schedules().add(ctx, accountID, agentID, sc, MaxSchedulesPerAgent)
	if errors.Is(err, errScheduleLimit) {
		return AgentSchedule{}, ErrTooManySchedules
	}
	if err != nil {
		return AgentSchedule{}, err
	}
	return scheduleView(agentID, sc), nil
}

// UpdateSchedule changes the given fields of a schedule and computes its
// next fire time afresh.
func (s *Service) UpdateSchedule(ctx context.Context, accountID, agentID, scheduleID string, in ScheduleChange) (AgentSchedule, error) {
	t, err := s.rows().AgentTrigger(ctx, accountID, agentID)
	if err != nil {
		return AgentSchedule{}, err
	}
	i := findSchedule(t.Schedules, scheduleID)
	if i < 0 {
		return AgentSchedule{}, ErrScheduleNotFound
	}
	sc := t.Schedules[i]
	if err := s.applyScheduleChange(&sc, in); err != nil {
		return AgentSchedule{}, err
	}
	if err := s.schedules().update(ctx, accountID, agentID, sc); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return AgentSchedule{}, ErrScheduleNotFound
		}
		return AgentSchedule{}, err
	}
	return scheduleView(agentID, sc), nil
}

// RemoveSchedule deletes a schedule.
func (s *Service) RemoveSchedule(ctx context.Context, accountID, agentID, scheduleID string) error {
	if _, err := s.rows().AgentTrigger(ctx, accountID, agentID); err != nil {
		return err
	}
	if err := s.schedules().remove(ctx, accountID, agentID, scheduleID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return ErrScheduleNotFound
		}
		return err
	}
	return nil
}

// applyScheduleChange validates in and applies it to sc, computing the
// next fire time from now.
func (s *Service) applyScheduleChange(sc *Schedule, in ScheduleChange) error {
	if in.CronExpression != nil {
		sc.CronExpression = strings.TrimSpace(*in.CronExpression)
	}
	if in.Timezone != nil {
		sc.Timezone = strings.TrimSpace(*in.Timezone)
	}
	if in.Enabled != nil {
		sc.Enabled = *in.Enabled
	}
	now := s.now()
	next, loc, err := ParseSchedule(sc.CronExpression, sc.Timezone, now)
	if err != nil {
		field := "cron_expression"
		if strings.HasPrefix(err.Error(), "timezone") {
			field = "timezone"
		}
		return invalid(err.Error(), "value_error", "body", field)
	}
	if after, _, err := ParseSchedule(sc.CronExpression, sc.Timezone, next); err == nil && after.Sub(next) < MinScheduleInterval {
		return invalid(fmt.Sprintf("cron_expression %q fires more often than once a minute", sc.CronExpression), "value_error", "body", "cron_expression")
	}
	sc.Timezone = loc.String()
	sc.NextRunAt = &next
	if in.Input != nil {
		if len(*in.Input) > MaxScheduleInputBytes {
			return invalid(fmt.Sprintf("input is %d bytes; a schedule's input is at most %d", len(*in.Input), MaxScheduleInputBytes), "value_error", "body", "input")
		}
		if !utf8.ValidString(*in.Input) {
			return invalid("input is not valid UTF-8", "value_error", "body", "input")
		}
		extra, err := withScheduleInput(sc.Extra, *in.Input)
		if err != nil {
			return err
		}
		sc.Extra = extra
	}
	return nil
}

// withScheduleInput sets (or, for "", removes) the "input" key among a
// schedule's extra keys, keeping the others an import brought.
func withScheduleInput(extra json.RawMessage, input string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(extra) > 0 {
		if err := json.Unmarshal(extra, &m); err != nil {
			m = map[string]json.RawMessage{}
		}
	}
	if input == "" {
		delete(m, "input")
	} else {
		b, err := json.Marshal(input)
		if err != nil {
			return nil, err
		}
		m["input"] = b
	}
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

func findSchedule(list []Schedule, id string) int {
	for i, sc := range list {
		if sc.ID == id {
			return i
		}
	}
	return -1
}

func scheduleView(agentID string, sc Schedule) AgentSchedule {
	v := AgentSchedule{ID: sc.ID, AgentID: agentID, CronExpression: sc.CronExpression, Timezone: sc.Timezone,
		Input: agentrow.ScheduleInput(sc.Extra), Enabled: sc.Enabled, CreatedAt: sc.CreatedAt.UTC()}
	if sc.Enabled && sc.NextRunAt != nil {
		n := sc.NextRunAt.UTC()
		v.NextFireAt = &n
	}
	return v
}
