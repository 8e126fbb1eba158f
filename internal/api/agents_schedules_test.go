package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAgentSchedulesExtension(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		a := createAgent(t, s, s.Key, map[string]any{"name": "Weekly report", "agent_template": "scheduled_report"})
		path := "/agents/" + a.ID + "/schedules"

		var list []api.ScheduleResponse
		r := s.Do(t, "GET", path, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &list)
		if len(list) != 0 {
			t.Fatalf("a new scheduled_report has schedules: %s", r.Body)
		}

		before := time.Now().UTC()
		r = s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "0 9 * * 1-5", "timezone": "Europe/Paris", "input": "the week's numbers"})
		wantStatus(t, r, http.StatusCreated)
		var sc api.ScheduleResponse
		r.JSON(t, &sc)
		paris, _ := time.LoadLocation("Europe/Paris")
		if sc.NextFireAt == nil || !sc.NextFireAt.After(before) || sc.NextFireAt.In(paris).Hour() != 9 ||
			sc.Timezone != "Europe/Paris" || sc.Input == nil || *sc.Input != "the week's numbers" || !sc.Enabled {
			t.Fatalf("created: %s", r.Body)
		}

		// Validation: every refusal names its field.
		wantLoc(t, s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "61 * * * *"}), "", "body", "cron_expression")
		wantLoc(t, s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "@daily", "timezone": "Mars/Olympus"}), "", "body", "timezone")
		wantLoc(t, s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "@every 1s"}), "", "body", "cron_expression")
		wantLoc(t, s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "@daily", "input": strings.Repeat("x", agents.MaxScheduleInputBytes+1)}), "", "body", "input")
		if r := s.Do(t, "POST", path, s.Key, map[string]any{"timezone": "UTC"}); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("missing cron_expression: %d %s", r.Status, r.Body)
		}

		// Change: disabling clears the next fire time; a new expression
		// computes it afresh; an empty input removes it.
		one := path + "/" + sc.ID
		r = s.Do(t, "PUT", one, s.Key, map[string]any{"enabled": false})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &sc)
		if sc.Enabled || sc.NextFireAt != nil || sc.CronExpression != "0 9 * * 1-5" {
			t.Errorf("disabled: %s", r.Body)
		}
		r = s.Do(t, "PUT", one, s.Key, map[string]any{"enabled": true, "cron_expression": "30 7 * * *", "timezone": "UTC", "input": ""})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &sc)
		if !sc.Enabled || sc.NextFireAt == nil || sc.NextFireAt.Hour() != 7 || sc.NextFireAt.Minute() != 30 || sc.Input != nil {
			t.Errorf("changed: %s", r.Body)
		}
		wantLoc(t, s.Do(t, "PUT", one, s.Key, map[string]any{"timezone": "Nowhere/Land"}), "", "body", "timezone")
		r = s.Do(t, "PUT", path+"/"+store.NewID(), s.Key, map[string]any{"enabled": false})
		wantStatus(t, r, http.StatusNotFound)

		// The schedule fires with its input.
		r = s.Do(t, "PUT", one, s.Key, map[string]any{"input": "numbers, please"})
		r.JSON(t, &sc)
		started, err := s.S.Runs.FireDue(ctx, sc.NextFireAt.Add(time.Second))
		if err != nil || len(started) != 1 || started[0].AgentID != a.ID || started[0].Input == nil || *started[0].Input != "numbers, please" {
			t.Fatalf("fire: %v %+v", err, started)
		}
		// It moved on to its next fire time.
		r = s.Do(t, "GET", path, s.Key, nil)
		r.JSON(t, &list)
		if len(list) != 1 || list[0].NextFireAt == nil || !list[0].NextFireAt.After(*sc.NextFireAt) {
			t.Errorf("after firing: %s", r.Body)
		}

		// The export carries the schedule and its input.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/export", s.Key, nil)
		if !strings.Contains(string(r.Body), `"cron_expression": "30 7 * * *"`) && !strings.Contains(string(r.Body), `"cron_expression":"30 7 * * *"`) ||
			!strings.Contains(string(r.Body), "numbers, please") {
			t.Errorf("export lacks the schedule: %s", r.Body)
		}

		// At most MaxSchedulesPerAgent.
		for i := 1; i < agents.MaxSchedulesPerAgent; i++ {
			wantStatus(t, s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "@hourly"}), http.StatusCreated)
		}
		r = s.Do(t, "POST", path, s.Key, map[string]any{"cron_expression": "@hourly"})
		if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "remove one first") {
			t.Errorf("over the limit: %d %s", r.Status, r.Body)
		}

		// Remove.
		wantStatus(t, s.Do(t, "DELETE", one, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "DELETE", one, s.Key, nil), http.StatusNotFound)
		r = s.Do(t, "GET", path, s.Key, nil)
		r.JSON(t, &list)
		if len(list) != agents.MaxSchedulesPerAgent-1 {
			t.Errorf("after remove: %d schedules", len(list))
		}
		// The canonical envelope from 2026-07-27.
		r = s.Do(t, "GET", path, s.Key, nil, "Service-Version: 2026-07-27")
		var env api.Envelope[api.ScheduleResponse]
		r.JSON(t, &env)
		if len(env.Data) != agents.MaxSchedulesPerAgent-1 || env.Pagination.Total != len(env.Data) {
			t.Errorf("envelope: %s", r.Body)
		}

		// An agent with another trigger has no schedules to manage.
		qa := createAgent(t, s, s.Key, map[string]any{"name": "QA", "agent_template": "simple_qa"})
		r = s.Do(t, "POST", "/agents/"+qa.ID+"/schedules", s.Key, map[string]any{"cron_expression": "@daily"})
		if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "dynamic_input") {
			t.Errorf("non-schedule agent: %d %s", r.Status, r.Body)
		}
		wantStatus(t, s.Do(t, "GET", "/agents/"+store.NewID()+"/schedules", s.Key, nil), http.StatusNotFound)
	})
}
