package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The workflow limits of the configuration reach the engine that runs
// workflows: a run past them fails with the step error naming the setting.
func TestWorkflowLimitsFromConfiguration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) {
			c.MaxStepOutputBytes, c.MaxRunOutputBytes, c.MaxStepsPerRun = 4096, 8192, 20
		})
		cases := []struct{ def, input, want string }{
			{`{"child_steps":[{"id":"bomb","step_type":"regex_replace","rules":[{"pattern":"","replacement":"0123456789"},{"pattern":"","replacement":"0123456789"}]}]}`,
				strings.Repeat("x", 100), "step bomb (regex_replace): the output of rule 1 exceeds the 4 KiB limit (SERVICE_MAX_STEP_OUTPUT_BYTES)"},
			{`{"child_steps":[{"id":"loop","step_type":"for_each","body":[{"id":"leaf","step_type":"text","text":"{{input}}"}]}]}`,
				"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22]", "step leaf (text): the run exceeds the 20-step limit (SERVICE_MAX_STEPS_PER_RUN)"},
			{`{"child_steps":[{"id":"a","step_type":"text","text":"{{input}}","child_steps":[{"id":"b","step_type":"text","text":"{{input}}","child_steps":[{"id":"c","step_type":"text","text":"{{input}}"}]}]}]}`,
				strings.Repeat("y", 3000), "step c (text): the run's total output exceeds the 8 KiB limit (SERVICE_MAX_RUN_OUTPUT_BYTES)"},
		}
		for _, c := range cases {
			agent := s.StoreAgent(t, s.AccountID, "limits", c.def, "dynamic_input")
			r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": c.input})
			var start runs.RunResponse
			r.JSON(t, &start)
			if r.Status != http.StatusOK {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
			run := waitTerminal(t, s, start.RunID)
			last := run.Attempts[len(run.Attempts)-1]
			if run.Status != runs.RunFailed || last.Error == nil || !strings.Contains(*last.Error, c.want) {
				t.Errorf("%s: want a failure with %q, got %s %v", c.def, c.want, run.Status, deref(last.Error))
			}
		}
	})
}

func waitTerminal(t *testing.T, s *testserver.Server, runID string) runs.RunResponse {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var snap runs.RunResponse
		r := s.Do(t, "GET", "/agents/runs/"+runID, s.Key, nil)
		r.JSON(t, &snap)
		if r.Status != http.StatusOK {
			t.Fatalf("get run: %d %s", r.Status, r.Body)
		}
		if runs.RunTerminal(snap.Status) {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", runID, snap.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
