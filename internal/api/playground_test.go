package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

const experimentsPath = "/models/playground/experiments"

// threeModels are served by the offline model and the two fakes.
var threeModels = []string{"agentry_offline", "openai_gpt_4o_mini", "anthropic_claude_haiku_4_5"}

func createExperiment(t *testing.T, s *testserver.Server, key string, body map[string]any) string {
	t.Helper()
	r := s.Do(t, "POST", experimentsPath, key, body)
	var c api.CreateExperimentResponse
	r.JSON(t, &c)
	if r.Status != http.StatusOK || c.ExperimentID == "" || c.Status != "pending" {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	return c.ExperimentID
}

type experiment struct {
	api.ExperimentDetailResponse
	Results playground.Results
}

func getExperiment(t *testing.T, s *testserver.Server, key, id string) experiment {
	t.Helper()
	r := s.Do(t, "GET", experimentsPath+"/"+id, key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("get: %d %s", r.Status, r.Body)
	}
	var e experiment
	r.JSON(t, &e.ExperimentDetailResponse)
	if len(e.ResultData) > 0 && string(e.ResultData) != "null" {
		if err := json.Unmarshal(e.ResultData, &e.Results); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// waitExperiment polls until cond holds.
func waitExperiment(t *testing.T, s *testserver.Server, key, id string, what string, cond func(e experiment) bool) experiment {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		e := getExperiment(t, s, key, id)
		if cond(e) {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("experiment never %s: %+v", what, e.ExperimentDetailResponse)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

func finished(e experiment) bool { return playground.Terminal(e.Status) }

func fund(t *testing.T, s *testserver.Server, accountID string, credits float64) {
	t.Helper()
	if _, err := billing.NewCredits(s.DB).Grant(context.Background(), accountID, credits, "test", "test:"+accountID); err != nil {
		t.Fatal(err)
	}
}

func balance(t *testing.T, s *testserver.Server, accountID string) float64 {
	t.Helper()
	b, err := billing.NewCredits(s.DB).Balance(context.Background(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPlaygroundExperimentOverThreeModels(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, withFakes := playgroundtest.Start(t)
		// Both fakes take a while, so the run shows whether they were
		// called one after the other or at once.
		const delay = 700 * time.Millisecond
		fakes.OpenAI.SetDefault(fakellm.Reply{Text: "Paris is the capital of France.", Usage: fakellm.Usage{Input: 20, Output: 8}, Delay: delay})
		// The answers differ against the reference, so one is strictly best
		// (equal scores would name no best model).
		fakes.Anthropic.SetDefault(fakellm.Reply{Text: "Paris.", Usage: fakellm.Usage{Input: 22, Output: 9}, Delay: delay})
		s := testserver.Start(t, d, withFakes)
		fund(t, s, s.AccountID, 100_000)
		before := balance(t, s, s.AccountID)

		id := createExperiment(t, s, s.Key, map[string]any{
			"prompt": "What is the capital of France?", "system_prompt": "Answer in one sentence. France is a country in Europe; its capital is Paris.",
			"model_ids": threeModels, "evaluation_mode": "prompt", "evaluator_model_id": "agentry_offline", "evaluation_complexity": "complex",
			"include_step_output_in_evaluation": true, "selected_step_output": "Paris is the capital of France."})
		e := waitExperiment(t, s, s.Key, id, "finished", finished)
		if e.Status != "completed" || e.ErrorMessage != nil || e.StartedAt == nil || e.CompletedAt == nil {
			t.Fatalf("outcome: %+v", e.ExperimentDetailResponse)
		}
		if *e.ProgressCurrent != 6 || *e.ProgressTotal != 6 || *e.ProgressMessage != "Completed" {
			t.Errorf("progress %d/%d %q", *e.ProgressCurrent, *e.ProgressTotal, *e.ProgressMessage)
		}
		if e.EvaluatorModelID == nil || *e.EvaluatorModelID != "agentry_offline" || !e.IncludeStepOutputInEvaluation ||
			len(e.SelectedModelIDs) != 3 || e.EvaluationComplexity != "complex" {
			t.Errorf("echo: %+v", e.ExperimentDetailResponse)
		}

		byID := map[string]playground.ModelResult{}
		for _, m := range e.Results.Models {
			byID[m.ModelID] = m
		}
		oa, an, off := byID["openai_gpt_4o_mini"], byID["anthropic_claude_haiku_4_5"], byID["agentry_offline"]
		if oa.Output == nil || *oa.Output != "Paris is the capital of France." || oa.InputTokens != 20 || oa.OutputTokens != 8 ||
			oa.Credits != 8 || oa.LatencyMS < delay.Milliseconds() || oa.Provider != "openai" || oa.ModelName == "" {
			t.Errorf("openai result: %+v", oa)
		}
		if an.Output == nil || *an.Output != "Paris." || an.TotalTokens != 31 || an.Credits != 67 {
			t.Errorf("anthropic result: %+v", an)
		}
		if off.Status != playground.CallCompleted || off.Output == nil || !strings.Contains(*off.Output, "Paris") || off.Credits != 0 {
			t.Errorf("offline result: %+v", off)
		}
		for _, m := range e.Results.Models {
			ev := m.Evaluation
			if ev == nil || ev.Status != playground.CallCompleted || ev.Score == nil || *ev.Score < 0 || *ev.Score > 1 ||
				len(ev.Criteria) != 4 || ev.EvaluatorModelID != "agentry_offline" {
				t.Errorf("%s evaluation: %+v", m.ModelID, ev)
			}
		}
		if sum := e.Results.Evaluation; sum == nil || len(sum.Ranking) != 3 || sum.BestModelID == nil || *sum.BestModelID != "openai_gpt_4o_mini" || *sum.BestModelID != sum.Ranking[0] {
			t.Errorf("ranking: %+v", sum)
		}
		// The calls ran at once: together they took less than one after the other.
		span := mustTime(t, *e.CompletedAt).Sub(mustTime(t, *e.StartedAt))
		if span >= 2*delay {
			t.Errorf("the models were not called concurrently: %v for two calls of %v", span, delay)
		}

		// Billed: every call recorded under the experiment with purpose
		// playground, the ledger charged exactly the totals.
		tot := e.Results.Totals
		if tot.Calls != 6 || tot.Credits != 75 || tot.InputTokens < 42 {
			t.Errorf("totals: %+v", tot)
		}
		var n int
		if err := s.DB.R.QueryRow(`SELECT COUNT(*) FROM model_usage WHERE account_id = $1 AND experiment_id = $2 AND purpose = 'playground'`,
			s.AccountID, id).Scan(&n); err != nil || n != 6 {
			t.Errorf("usage rows: %d %v", n, err)
		}
		if got := before - balance(t, s, s.AccountID); got != 75 {
			t.Errorf("charged %v, want 75", got)
		}
		// What reached the fakes: the system prompt, and the upstream names.
		req := fakes.OpenAI.Requests()[0].JSON()
		if req["model"] != "gpt-4o-mini" || !strings.Contains(string(fakes.OpenAI.Requests()[0].Body), "Answer in one sentence") {
			t.Errorf("openai request: %s", fakes.OpenAI.Requests()[0].Body)
		}

		// A finished experiment cannot be cancelled.
		r := s.Do(t, "POST", experimentsPath+"/"+id+"/cancel", s.Key, nil)
		if r.Status != http.StatusConflict {
			t.Errorf("cancel a completed experiment: %d %s", r.Status, r.Body)
		}
	})
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPlaygroundCancel(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, withFakes := playgroundtest.Start(t)
		// The paid models stall: only a cancel ends their calls.
		fakes.OpenAI.SetDefault(fakellm.Reply{Text: "late", Delay: time.Minute})
		fakes.Anthropic.SetDefault(fakellm.Reply{Text: "late", Delay: time.Minute})
		s := testserver.Start(t, d, withFakes)
		fund(t, s, s.AccountID, 100_000)
		before := balance(t, s, s.AccountID)

		id := createExperiment(t, s, s.Key, map[string]any{"prompt": "Summarize: the sky is blue. Grass is green.", "model_ids": threeModels})
		e := waitExperiment(t, s, s.Key, id, "half done", func(e experiment) bool {
			return e.Status == "running" && e.ProgressCurrent != nil && *e.ProgressCurrent == 1 &&
				len(fakes.OpenAI.Requests()) == 1 && len(fakes.Anthropic.Requests()) == 1
		})
		if *e.ProgressTotal != 3 || !strings.Contains(*e.ProgressMessage, "1 of 3") {
			t.Errorf("progress: %d/%d %q", *e.ProgressCurrent, *e.ProgressTotal, *e.ProgressMessage)
		}

		start := time.Now()
		r := s.Do(t, "POST", experimentsPath+"/"+id+"/cancel", s.Key, nil)
		var c api.CancelExperimentResponse
		r.JSON(t, &c)
		if r.Status != http.StatusOK || c.Status != "canceled" {
			t.Fatalf("cancel: %d %s", r.Status, r.Body)
		}
		if e := getExperiment(t, s, s.Key, id); e.Status != "canceled" || e.CompletedAt == nil {
			t.Errorf("after cancel: %+v", e.ExperimentDetailResponse)
		}
		// The stalled calls are aborted and recorded as such, with the
		// offline model's answer kept.
		e = waitExperiment(t, s, s.Key, id, "wound down", func(e experiment) bool {
			for _, m := range e.Results.Models {
				if m.Status == playground.CallPending {
					return false
				}
			}
			return len(e.Results.Models) == 3
		})
		if waited := time.Since(start); waited > 10*time.Second {
			t.Errorf("the in-flight calls took %v to stop", waited)
		}
		for _, m := range e.Results.Models {
			want := playground.CallCanceled
			if m.ModelID == "agentry_offline" {
				want = playground.CallCompleted
			}
			if m.Status != want {
				t.Errorf("%s: %s (%s), want %s", m.ModelID, m.Status, m.Error, want)
			}
		}
		if e.Status != "canceled" {
			t.Errorf("status after wind-down: %s", e.Status)
		}
		// Nothing was billed for the aborted calls.
		if got := before - balance(t, s, s.AccountID); got != 0 {
			t.Errorf("charged %v for aborted calls", got)
		}
		// Cancelling again is harmless.
		if r := s.Do(t, "POST", experimentsPath+"/"+id+"/cancel", s.Key, nil); r.Status != http.StatusOK {
			t.Errorf("second cancel: %d", r.Status)
		}
	})
}

func TestPlaygroundRequests(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, withFakes := playgroundtest.Start(t)
		s := testserver.Start(t, d, withFakes)
		fund(t, s, s.AccountID, 100_000)
		other := s.NewTenant(t, "other")

		// 422s: each names the field.
		for _, c := range []struct {
			body any
			loc  string
		}{
			{map[string]any{"model_ids": []string{"agentry_offline"}}, `"prompt"`},
			{map[string]any{"prompt": "  ", "model_ids": []string{"agentry_offline"}}, `"prompt"`},
			{map[string]any{"prompt": "p"}, `"model_ids"`},
			{map[string]any{"prompt": "p", "model_ids": []string{}}, `"model_ids"`},
			{map[string]any{"prompt": "p", "model_ids": strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",")}, `"model_ids"`},
			{map[string]any{"prompt": "p", "model_ids": []string{"no_such_model"}}, `"model_ids",0`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline", "agentry-offline"}}, `"model_ids",1`},
			{map[string]any{"prompt": "p", "model_ids": []string{"openai_text_embedding_3_small"}}, `"model_ids",0`},
			{map[string]any{"prompt": "p", "model_ids": []string{"openai_gpt_4_5_preview"}}, `"model_ids",0`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}, "evaluation_mode": "vibes"}, `"evaluation_mode"`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}, "evaluation_complexity": "hard"}, `"evaluation_complexity"`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}, "evaluation_mode": "prompt", "evaluator_model_id": "nope"}, `"evaluator_model_id"`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}, "json_template": "{not json"}, `"json_template"`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}, "json_template": `{"messages": []}`}, `"json_template"`},
			{map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}, "json_template": `{"messages": [{"role": "robot", "content": "x"}]}`}, `"json_template"`},
			{`{"prompt": "p", "model_ids": "agentry_offline"}`, `"model_ids"`},
			{`{"prompt": `, `"body"`},
		} {
			r := s.Do(t, "POST", experimentsPath, s.Key, c.body)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), c.loc) {
				t.Errorf("%v: %d %s (want a 422 at %s)", c.body, r.Status, r.Body, c.loc)
			}
		}

		// 402: an account that cannot pay is refused before anything runs.
		if _, err := billing.NewCredits(s.DB).Debit(context.Background(), other.AccountID, balance(t, s, other.AccountID), "test", "drain"); err != nil {
			t.Fatal(err)
		}
		r := s.Do(t, "POST", experimentsPath, other.Key, map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}})
		var pay struct {
			Detail api.InsufficientCreditsDetail `json:"detail"`
		}
		r.JSON(t, &pay)
		if r.Status != http.StatusPaymentRequired || pay.Detail.Error != "insufficient_credits" || pay.Detail.AccountID != other.AccountID {
			t.Errorf("402: %d %s", r.Status, r.Body)
		}
		fund(t, s, other.AccountID, 1) // enough for the free model, not for a paid one's estimate
		r = s.Do(t, "POST", experimentsPath, other.Key, map[string]any{"prompt": "p", "model_ids": []string{"anthropic_claude_haiku_4_5"}})
		pay.Detail = api.InsufficientCreditsDetail{}
		r.JSON(t, &pay)
		// The refusal comes from the up-front estimate and says so, with
		// both figures.
		if r.Status != http.StatusPaymentRequired || pay.Detail.Error != "insufficient_credits" ||
			!regexp.MustCompile(`up-front estimate is [0-9.]+ credits and the account's balance is 1 credits`).MatchString(pay.Detail.Message) {
			t.Errorf("estimate over the balance: %d %s", r.Status, r.Body)
		}

		// Advanced mode: the template's messages, with the prompt filled in.
		id := createExperiment(t, s, s.Key, map[string]any{"prompt": "What is 2+2?", "model_ids": []string{"openai_gpt_4o"},
			"json_template": `{"messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Q: {{prompt}}"}], "max_tokens": 50}`})
		e := waitExperiment(t, s, s.Key, id, "finished", finished)
		if e.Status != "completed" || e.JSONTemplate == nil || e.EvaluatorModelID != nil {
			t.Fatalf("template experiment: %+v", e.ExperimentDetailResponse)
		}
		sent := fakes.OpenAI.Requests()[0]
		if !strings.Contains(string(sent.Body), "Q: What is 2+2?") || !strings.Contains(string(sent.Body), "Be terse.") || sent.JSON()["max_completion_tokens"] == nil && sent.JSON()["max_tokens"] == nil {
			t.Errorf("template request: %s", sent.Body)
		}

		// A provider error fails that model; with no model answering, the
		// experiment fails and says why.
		fakes.Anthropic.Enqueue(fakellm.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "prompt is too long"})
		id = createExperiment(t, s, s.Key, map[string]any{"prompt": "p", "model_ids": []string{"anthropic_claude_haiku_4_5"}})
		e = waitExperiment(t, s, s.Key, id, "finished", finished)
		if e.Status != "failed" || e.ErrorMessage == nil || !strings.Contains(*e.ErrorMessage, "prompt is too long") ||
			e.Results.Models[0].Status != playground.CallFailed {
			t.Errorf("failed experiment: %+v %+v", e.ExperimentDetailResponse, e.Results)
		}

		// Reading and listing.
		for _, path := range []string{"/0190a3b4-0000-7000-8000-000000000000", "/0190a3b4-0000-7000-8000-000000000000/cancel"} {
			method := "GET"
			if strings.HasSuffix(path, "cancel") {
				method = "POST"
			}
			if r := s.Do(t, method, experimentsPath+path, s.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("%s unknown: %d", method, r.Status)
			}
			if r := s.Do(t, method, experimentsPath+"/not-a-uuid"+strings.TrimPrefix(path, "/0190a3b4-0000-7000-8000-000000000000"), s.Key, nil); r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s malformed: %d", method, r.Status)
			}
		}
		// Another account's experiment does not exist for it.
		for _, m := range []string{"GET", "POST", "DELETE"} {
			path := experimentsPath + "/" + id
			if m == "POST" {
				path += "/cancel"
			}
			if r := s.Do(t, m, path, other.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("%s as another account: %d", m, r.Status)
			}
		}
		var list api.ExperimentListResponse
		s.Do(t, "GET", experimentsPath, s.Key, nil).JSON(t, &list)
		if list.Total != 2 || len(list.Experiments) != 2 || list.Experiments[0].ID != id || list.Experiments[0].Status != "failed" {
			t.Fatalf("list: %+v", list)
		}
		today, tomorrow, yesterday := dateIn(0), dateIn(1), dateIn(-1)
		for q, want := range map[string]int{
			"?limit=1":                1,
			"?limit=1&offset=1":       1,
			"?offset=2":               0,
			"?days=1":                 2,
			"?start_date=" + today:    2,
			"?start_date=" + tomorrow: 0,
			"?end_date=" + yesterday:  0,
			"?start_date=" + yesterday + "&end_date=" + today: 2,
		} {
			var l api.ExperimentListResponse
			r := s.Do(t, "GET", experimentsPath+q, s.Key, nil)
			r.JSON(t, &l)
			if r.Status != 200 || len(l.Experiments) != want {
				t.Errorf("%s: %d, %d items, want %d", q, r.Status, len(l.Experiments), want)
			}
		}
		for _, q := range []string{"?days=0", "?days=731", "?limit=51", "?offset=-1", "?start_date=yesterday", "?end_date=2026-02-30",
			"?start_date=" + today + "&end_date=" + yesterday} {
			if r := s.Do(t, "GET", experimentsPath+q, s.Key, nil); r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
		var env api.Envelope[api.ExperimentSummaryResponse]
		r = s.Do(t, "GET", experimentsPath+"?limit=1&offset=1", s.Key, nil, "Service-Version: 2026-07-27")
		r.JSON(t, &env)
		if len(env.Data) != 1 || env.Pagination.Total != 2 || env.Pagination.Page != 2 || env.Pagination.HasNext {
			t.Errorf("strict list: %s", r.Body)
		}
		var none api.ExperimentListResponse
		s.Do(t, "GET", experimentsPath, other.Key, nil).JSON(t, &none)
		if none.Total != 0 {
			t.Errorf("another account lists %d experiments", none.Total)
		}

		// Delete: gone from the API, kept in storage.
		if r := s.Do(t, "DELETE", experimentsPath+"/"+id, s.Key, nil); r.Status != http.StatusNoContent || len(r.Body) != 0 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", experimentsPath+"/"+id, s.Key, nil); r.Status != http.StatusNotFound {
			t.Errorf("get after delete: %d", r.Status)
		}
		if r := s.Do(t, "DELETE", experimentsPath+"/"+id, s.Key, nil); r.Status != http.StatusNotFound {
			t.Errorf("delete twice: %d", r.Status)
		}
		s.Do(t, "GET", experimentsPath, s.Key, nil).JSON(t, &list)
		if list.Total != 1 {
			t.Errorf("list after delete: %d", list.Total)
		}
		if kept, err := s.S.Playground.Stored(context.Background(), id); err != nil || kept.Status != "failed" {
			t.Errorf("the deleted experiment is not kept: %+v %v", kept, err)
		}
	})
}
