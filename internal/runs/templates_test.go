package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func storeAgent(t *testing.T, s *testserver.Server, def *definition.Definition, trigger definition.TriggerType) string {
	t.Helper()
	raw, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	return s.StoreAgent(t, s.AccountID, def.Name, string(raw), string(trigger))
}

func waitDone(t *testing.T, s *testserver.Server, runID string) runs.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := runs.NewRepo(s.DB, nil).Run(context.Background(), s.AccountID, runID)
		if err != nil {
			t.Fatal(err)
		}
		if runs.RunTerminal(r.Status) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", runID, r.Status)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// TestTemplatesRunOffline runs every agent template whose step types this
// server provides to completion on the offline model; the others are
// refused at start with the names of the missing step types.
func TestTemplatesRunOffline(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		var hooked string
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			hooked = string(b)
			w.Write([]byte(`{"received":true}`))
		}))
		defer hook.Close()
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		ran := 0
		for _, info := range definition.TemplateInfos() {
			if info.NeedsKnowledgeBase || info.DefaultTrigger == definition.TriggerNewContent {
				// These need a knowledge base or a content version; the
				// knowledge area runs them (TestKnowledgeTemplatesOffline).
				continue
			}
			def, trigger, err := definition.NewFromTemplate(info.Name, "t-"+string(info.Name),
				definition.TemplateParams{Trigger: info.DefaultTrigger, WebhookURL: hook.URL + "/in", NotifyEmail: "ops@example.com"})
			if err != nil {
				t.Fatalf("%s: %v", info.Name, err)
			}
			agent := storeAgent(t, s, def, trigger)
			in := "Rivers flow to the sea. Rain fills the rivers. What fills the rivers?"
			r, err := s.S.Runs.Start(context.Background(), s.AccountID, agent, runs.StartRequest{Input: &in})
			if missing := s.S.Runs.Engine.Registry.Missing(def); len(missing) > 0 {
				if !errors.Is(err, runs.ErrUnavailableStep) || !strings.Contains(err.Error(), missing[0]) {
					t.Errorf("%s uses %v but was not refused clearly: %v", info.Name, missing, err)
				}
				t.Logf("%s waits for step types %v", info.Name, missing)
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", info.Name, err)
			}
			done := waitDone(t, s, r.ID)
			if done.Status != runs.RunCompleted {
				t.Errorf("template %s: run %s: %s", info.Name, done.Status, done.Error)
				continue
			}
			ran++
		}
		if ran < 4 {
			t.Errorf("only %d templates ran", ran)
		}
		if hooked == "" {
			t.Error("webhook_pipeline's webhook was never called")
		}
	})
}

// TestCreditsRunOutMidRun gives an account enough credits for one priced
// model call but not two: the run fails at the second call, clearly, and
// the first call is billed.
func TestCreditsRunOutMidRun(t *testing.T) {
	fake := fakellm.NewOpenAI(t)
	fake.SetDefault(fakellm.Reply{Text: "a priced answer", Usage: fakellm.Usage{Input: 100, Output: 1000}})
	t.Setenv("OPENAI_BASE_URL", fake.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		def, _, err := definition.ParseDefinition([]byte(`{"child_steps":[{"id":"one","step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"{{input}}","child_steps":[
			{"id":"two","step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"again: {{input}}"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		agent := storeAgent(t, s, def, definition.TriggerDynamicInput)
		bal, _ := billing.NewCredits(s.DB).Balance(ctx, s.AccountID)
		if _, err := billing.NewCredits(s.DB).Charge(ctx, s.AccountID, bal-1000, "test", ""); err != nil {
			t.Fatal(err)
		}
		in := "hello"
		r, err := s.S.Runs.Start(ctx, s.AccountID, agent, runs.StartRequest{Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		done := waitDone(t, s, r.ID)
		if done.Status != runs.RunFailed || !strings.Contains(done.Error, "ran out of credits") {
			t.Fatalf("run %s: %q", done.Status, done.Error)
		}
		if done.Credits <= 0 {
			t.Errorf("the first call was not billed: %v", done.Credits)
		}
		steps, _ := runs.NewRepo(s.DB, nil).Steps(ctx, r.ID)
		if len(steps) < 2 || steps[0].Status != "completed" || steps[0].Credits <= 0 || steps[len(steps)-1].Status != "failed" {
			t.Errorf("steps: %+v", steps)
		}
		// The usage ledger carries the run and step of the billed call.
		if u, _ := billing.NewCredits(s.DB).UsageOf(ctx, s.AccountID, "run", r.ID); u.Calls != 1 || u.Credits != done.Credits {
			t.Errorf("usage %+v, run credits %v", u, done.Credits)
		}
	})
}
