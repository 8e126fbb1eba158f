package playground

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/llmconfig"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

func TestParseTemplate(t *testing.T) {
	ok := `{"messages":[{"role":"system","content":"S {{system_prompt}}"},{"role":"user","content":"Q: {{prompt}} / {{step_output}}"}],"max_tokens":7,"temperature":0.5}`
	tpl, err := parseTemplate(&ok)
	if err != nil {
		t.Fatal(err)
	}
	req := callSpec{prompt: "why?", system: "be kind", template: tpl, stepOutput: "ref"}.request("m")
	if len(req.Messages) != 2 || req.Messages[0].Text() != "S be kind" || req.Messages[1].Text() != "Q: why? / ref" ||
		req.MaxTokens != 7 || *req.Temperature != 0.5 {
		t.Errorf("request: %+v", req)
	}
	plain := callSpec{prompt: "why?"}.request("m")
	if len(plain.Messages) != 1 || plain.Messages[0].Role != llm.RoleUser {
		t.Errorf("no system prompt, one message: %+v", plain.Messages)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"messages":"x"}`, `{"messages":[]}`, `{"messages":[{"role":"tool","content":"x"}]}`,
		`{"messages":[{"role":"user","content":"x"}],"max_tokens":-1}`, `{"messages":[{"role":"user","content":"x"}],"temperature":3}`} {
		if _, err := parseTemplate(&bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	blank := "  "
	if tpl, err := parseTemplate(&blank); tpl != nil || err != nil {
		t.Error("a blank template is no template")
	}
}

func TestEvaluationParsing(t *testing.T) {
	var ev Evaluation
	if err := parseEvaluation("```json\n{\"score\": 1.7, \"reasoning\": \"ok\", \"criteria\": {\"accuracy\": -2, \"x\": \"y\"}}\n```", &ev); err != nil {
		t.Fatal(err)
	}
	if *ev.Score != 1 || ev.Criteria["accuracy"] != 0 || len(ev.Criteria) != 1 || ev.Reasoning != "ok" {
		t.Errorf("clamped: %+v", ev)
	}
	for _, bad := range []string{"great answer", `{"reasoning": "no score"}`, `{"score": "high"}`} {
		if err := parseEvaluation(bad, &Evaluation{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// The schema is strict and grows with complexity.
	var schema struct {
		Required []string       `json:"required"`
		Props    map[string]any `json:"properties"`
		Extra    bool           `json:"additionalProperties"`
	}
	_ = json.Unmarshal(evaluationSchema(ComplexityComplex), &schema)
	if len(schema.Required) != 5 || len(schema.Props) != 5 || schema.Extra {
		t.Errorf("complex schema: %+v", schema)
	}
	_ = json.Unmarshal(evaluationSchema(ComplexitySimple), &schema)
	if len(schema.Required) != 2 {
		t.Errorf("simple schema: %+v", schema)
	}
	// A judge without structured output gets JSON mode and the schema in words.
	req := evaluationRequest("m", ComplexityMedium, "p", "", "", "answer", false)
	if req.ResponseFormat.Type != llm.FormatJSONObject || !strings.Contains(req.Messages[0].Text(), `"criteria"`) {
		t.Errorf("unstructured judge: %+v", req.ResponseFormat)
	}
	// The offline model answers the schema validly.
	req = evaluationRequest("agentry_offline", ComplexityComplex, "What is 2+2?", "", "4", "It is 4.", true)
	resp, err := offline.New().Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ev = Evaluation{}
	if err := parseEvaluation(resp.Text(), &ev); err != nil || ev.Score == nil || len(ev.Criteria) != 4 {
		t.Errorf("offline judge: %q %+v %v", resp.Text(), ev, err)
	}
}

// queue records inserted jobs instead of running them.
type queue struct {
	mu   sync.Mutex
	jobs []river.JobArgs
	err  error
}

func (q *queue) Insert(_ context.Context, args river.JobArgs, _ *river.InsertOpts) (*rivertype.JobRow, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return nil, q.err
	}
	q.jobs = append(q.jobs, args)
	return &rivertype.JobRow{}, nil
}

func service(t *testing.T, d store.Dialect, fake *fakellm.Server) (*Service, *queue, string) {
	t.Helper()
	db := storetest.Open(t, d)
	cat := catalog.Builtin()
	zero := 0
	// The offline model stays the default (and so the evaluator), as the
	// providers file's default_model can say, so that evaluations here
	// are the offline judge's.
	r, err := llmconfig.Build(&llmconfig.File{DefaultModel: "agentry_offline", Providers: []llmconfig.Provider{
		{Name: "openai", Type: llmconfig.TypeOpenAI, BaseURL: fake.URL, APIKey: "k", MaxRetries: &zero},
		{Name: "offline", Type: llmconfig.TypeOffline}}}, cat, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	q := &queue{}
	_, a, err := directory.CreateUser(context.Background(), db, directory.NewUser{Name: "u", OpeningCredits: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	return New(db, q, r, cat, billing.Meter{DB: db}), q, a.ID
}

func TestCreateChecksAndResume(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		fake := fakellm.NewOpenAI(t)
		fake.SetDefault(fakellm.Reply{Text: "fresh", Usage: fakellm.Usage{Input: 10, Output: 2}})
		s, q, acct := service(t, d, fake)

		// A model nobody serves on this server is refused up front.
		_, err := s.Create(ctx, CreateInput{AccountID: acct, Prompt: "p", ModelIDs: []string{"anthropic_claude_haiku_4_5"}})
		var inv *InvalidError
		if !errors.As(err, &inv) || !strings.Contains(inv.Error(), "cannot be called") {
			t.Fatalf("unserved model: %v", err)
		}
		// The evaluator defaults to the server's default model.
		e, err := s.Create(ctx, CreateInput{AccountID: acct, Prompt: "What is fresh? Fresh bread is baked daily.", ModelIDs: []string{"gpt-4o-mini", "openai_gpt_4o"}, EvaluationMode: ModePrompt})
		if err != nil || e.EvaluatorModelID != "agentry_offline" || e.ModelIDs[0] != "openai_gpt_4o_mini" || *e.ProgressTotal != 4 || len(q.jobs) != 1 {
			t.Fatalf("create: %+v %v", e, err)
		}
		// A queue failure fails the experiment instead of leaving it pending.
		q.err = errors.New("queue down")
		if _, err := s.Create(ctx, CreateInput{AccountID: acct, Prompt: "p", ModelIDs: []string{"agentry_offline"}}); err == nil {
			t.Error("queue failure not reported")
		}
		q.err = nil

		// A job retried after a crash resumes: the model that had answered
		// (and its evaluation) is neither called nor billed again.
		prior := Results{Models: []ModelResult{
			{ModelID: "openai_gpt_4o_mini", Status: CallCompleted, Output: ptr("kept"),
				Evaluation: &Evaluation{Status: CallCompleted, Score: ptr(0.5)}},
			{ModelID: "openai_gpt_4o", Status: CallPending}}}
		body, _ := json.Marshal(prior)
		if ok, err := s.repo.start(ctx, e.ID, 4, "Running"); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if err := s.repo.progress(ctx, e.ID, 2, "2 of 4", body); err != nil {
			t.Fatal(err)
		}
		if err := s.execute(ctx, e.ID, true); err != nil {
			t.Fatal(err)
		}
		got, _ := s.repo.experiment(ctx, acct, e.ID)
		var res Results
		_ = json.Unmarshal(got.ResultData, &res)
		if got.Status != StatusCompleted || *got.ProgressCurrent != 4 || len(fake.Requests()) != 1 ||
			*res.Models[0].Output != "kept" || *res.Models[1].Output != "fresh" || res.Models[1].Evaluation.Status != CallCompleted {
			t.Errorf("resume: %+v %d requests %+v", got, len(fake.Requests()), res)
		}
		if res.Totals.Calls != 2 { // the second model and its (free, offline) evaluation
			t.Errorf("totals: %+v", res.Totals)
		}
		// A job for an experiment cancelled before it started does nothing.
		c, _ := s.Create(ctx, CreateInput{AccountID: acct, Prompt: "p", ModelIDs: []string{"openai_gpt_4o"}})
		if _, err := s.Cancel(ctx, acct, c.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.execute(ctx, c.ID, true); err != nil || len(fake.Requests()) != 1 {
			t.Errorf("cancelled job ran: %v, %d requests", err, len(fake.Requests()))
		}
		if _, err := s.Cancel(ctx, acct, e.ID); !errors.Is(err, ErrFinished) {
			t.Errorf("cancel finished: %v", err)
		}
	})
}

// TestShutdownResumes: a job interrupted by the process stopping keeps what
// answered, returns an error so River runs it again, and the next attempt
// calls only the model that had not answered.
func TestShutdownResumes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fake := fakellm.NewOpenAI(t)
		fake.SetDefault(fakellm.Reply{Text: "slow", Delay: time.Minute, Usage: fakellm.Usage{Input: 3, Output: 1}})
		s, _, acct := service(t, d, fake)
		e, err := s.Create(context.Background(), CreateInput{AccountID: acct, Prompt: "p", ModelIDs: []string{"agentry_offline", "openai_gpt_4o"}})
		if err != nil {
			t.Fatal(err)
		}
		jobCtx, stop := context.WithCancel(context.Background())
		go func() {
			// Once the offline model has answered and the other call is in
			// flight, the process shuts down.
			for {
				x, err := s.repo.experiment(context.Background(), acct, e.ID)
				if err == nil && x.ProgressCurrent != nil && *x.ProgressCurrent == 1 && len(fake.Requests()) == 1 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			stop()
		}()
		if err := s.execute(jobCtx, e.ID, true); !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted job returned %v", err)
		}
		got, _ := s.repo.experiment(context.Background(), acct, e.ID)
		var res Results
		_ = json.Unmarshal(got.ResultData, &res)
		if got.Status != StatusRunning || *got.ProgressCurrent != 1 || res.Models[0].Status != CallCompleted || res.Models[1].Status != CallPending {
			t.Fatalf("after the interruption: %+v %+v", got, res.Models)
		}
		fake.SetDefault(fakellm.Reply{Text: "fast", Usage: fakellm.Usage{Input: 3, Output: 1}})
		if err := s.execute(context.Background(), e.ID, true); err != nil {
			t.Fatal(err)
		}
		got, _ = s.repo.experiment(context.Background(), acct, e.ID)
		_ = json.Unmarshal(got.ResultData, &res)
		if got.Status != StatusCompleted || *res.Models[1].Output != "fast" || len(fake.Requests()) != 2 {
			t.Errorf("resumed: %+v %+v", got, res.Models)
		}
		// On its last attempt, an interrupted job records the outcome instead.
		e2, _ := s.Create(context.Background(), CreateInput{AccountID: acct, Prompt: "p", ModelIDs: []string{"openai_gpt_4o"}})
		fake.SetDefault(fakellm.Reply{Text: "slow", Delay: time.Minute})
		jobCtx, stop = context.WithCancel(context.Background())
		go func() {
			for len(fake.Requests()) < 3 {
				time.Sleep(5 * time.Millisecond)
			}
			stop()
		}()
		if err := s.execute(jobCtx, e2.ID, false); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.repo.experiment(context.Background(), acct, e2.ID); got.Status != StatusFailed {
			t.Errorf("last attempt: %s", got.Status)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestBestModelOnlyWhenStrictlyBest: best_model_id is null on a tie and
// when an answer could not be judged; the ranking still lists the scores.
func TestBestModelOnlyWhenStrictlyBest(t *testing.T) {
	judged := func(id string, score float64) ModelResult {
		return ModelResult{ModelID: id, Status: CallCompleted, Evaluation: &Evaluation{Status: CallCompleted, Score: ptr(score)}}
	}
	for _, c := range []struct {
		name   string
		models []ModelResult
		best   string
	}{
		{"strict", []ModelResult{judged("a", 0.4), judged("b", 0.9)}, "b"},
		{"tie", []ModelResult{judged("a", 0.7), judged("b", 0.7)}, ""},
		{"tie below the top is fine", []ModelResult{judged("a", 0.9), judged("b", 0.5), judged("c", 0.5)}, "a"},
		{"unjudged answer", []ModelResult{judged("a", 0.9), {ModelID: "b", Status: CallCompleted,
			Evaluation: &Evaluation{Status: CallUnavailable, Error: "no basis"}}}, ""},
		{"failed model is not a tie", []ModelResult{judged("a", 0.9), {ModelID: "b", Status: CallFailed}}, "a"},
		{"nothing judged", []ModelResult{{ModelID: "a", Status: CallCompleted, Evaluation: &Evaluation{Status: CallUnavailable}}}, ""},
	} {
		r := &runner{e: Experiment{EvaluatorModelID: "agentry_offline"}, res: Results{Models: c.models}}
		sum := r.summary()
		got := ""
		if sum.BestModelID != nil {
			got = *sum.BestModelID
		}
		if got != c.best {
			t.Errorf("%s: best %q, want %q (ranking %v)", c.name, got, c.best, sum.Ranking)
		}
	}
}

// TestOfflineEvaluatorJudgesOrAbstains runs experiments judged by the
// offline model: with a reference answer it scores by overlap and says so;
// with nothing to check against it reports the evaluation unavailable.
// Its reasoning is never its own instructions.
func TestOfflineEvaluatorJudgesOrAbstains(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		fake := fakellm.NewOpenAI(t)
		fake.SetDefault(fakellm.Reply{Text: "The capital of France is Paris.", Usage: fakellm.Usage{Input: 10, Output: 7}})
		s, _, acct := service(t, d, fake)
		run := func(in CreateInput) Results {
			t.Helper()
			in.AccountID, in.EvaluationMode, in.EvaluatorModelID = acct, ModePrompt, ptr("agentry_offline")
			e, err := s.Create(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.execute(ctx, e.ID, true); err != nil {
				t.Fatal(err)
			}
			got, _ := s.repo.experiment(ctx, acct, e.ID)
			var res Results
			_ = json.Unmarshal(got.ResultData, &res)
			return res
		}
		// No reference, no facts: nothing to judge against.
		res := run(CreateInput{Prompt: "What is the capital of France?", ModelIDs: []string{"agentry_offline", "openai_gpt_4o"}})
		for _, m := range res.Models {
			if m.Evaluation == nil || m.Evaluation.Status != CallUnavailable || m.Evaluation.Score != nil || !strings.Contains(m.Evaluation.Error, "cannot judge") {
				t.Errorf("%s: evaluation %+v, want unavailable", m.ModelID, m.Evaluation)
			}
		}
		if res.Evaluation == nil || res.Evaluation.BestModelID != nil || len(res.Evaluation.Ranking) != 0 {
			t.Errorf("summary without judgments: %+v", res.Evaluation)
		}
		// With a reference answer: an explained overlap score.
		res = run(CreateInput{Prompt: "What is the capital of France?", ModelIDs: []string{"agentry_offline", "openai_gpt_4o"},
			IncludeStepOutput: true, SelectedStepOutput: ptr("Paris is the capital of France.")})
		scores := map[string]float64{}
		for _, m := range res.Models {
			ev := m.Evaluation
			if ev == nil || ev.Status != CallCompleted || ev.Score == nil {
				t.Fatalf("%s: evaluation %+v", m.ModelID, ev)
			}
			if strings.Contains(ev.Reasoning, "impartial evaluator") || !strings.Contains(ev.Reasoning, "reference output") {
				t.Errorf("%s: reasoning %q", m.ModelID, ev.Reasoning)
			}
			scores[m.ModelID] = *ev.Score
		}
		// The offline model has no context to answer from; the real answer
		// matches the reference.
		if scores["openai_gpt_4o"] != 1 || scores["agentry_offline"] >= 0.5 {
			t.Errorf("scores %v", scores)
		}
		if res.Evaluation.BestModelID == nil || *res.Evaluation.BestModelID != "openai_gpt_4o" {
			t.Errorf("best %v", res.Evaluation.BestModelID)
		}
		// Two identical answers tie: no best model.
		res = run(CreateInput{Prompt: "What is the capital of France?", ModelIDs: []string{"openai_gpt_4o", "openai_gpt_4o_mini"},
			IncludeStepOutput: true, SelectedStepOutput: ptr("Paris is the capital of France.")})
		if res.Evaluation.BestModelID != nil || len(res.Evaluation.Ranking) != 2 {
			t.Errorf("tie: %+v", res.Evaluation)
		}
	})
}
