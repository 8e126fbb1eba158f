package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func daysFromNow(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly) }

// acmeCatalog adds a family to the built-in catalog, dated from today:
// acme_old is deprecated and retires in 20 days (successor acme_new).
func acmeCatalog() []byte {
	return []byte(fmt.Sprintf(`models:
  - {id: acme_old, api_name: acme-old, name: Acme Old, provider: acme, family: acme, family_generation: 1, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s, deprecated_at: %s, sunset_at: %s, successor_id: acme_new}
  - {id: acme_new, api_name: acme-new, name: Acme New, provider: acme, family: acme, family_generation: 2, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s}
`, daysFromNow(-500), daysFromNow(-100), daysFromNow(20), daysFromNow(-200)))
}

// startWithModels is a server whose paid models answer from the fake
// providers on loopback, with the acme family in its catalog.
func startWithModels(t testing.TB, d store.Dialect) (*testserver.Server, *playgroundtest.Fakes) {
	t.Helper()
	fakes, withFakes := playgroundtest.Start(t, acmeCatalog())
	srv := testserver.Start(t, d, withFakes)
	if _, err := billing.NewCredits(srv.DB).Grant(context.Background(), srv.AccountID, 100_000, "test", "test:"+srv.AccountID); err != nil {
		t.Fatal(err)
	}
	return srv, fakes
}

// agentOnModel stores an agent whose prompt step names model and runs the
// lifecycle check on it, as the agents area does when an agent is saved.
func agentOnModel(t testing.TB, srv *testserver.Server, accountID, name, model string) string {
	t.Helper()
	def := fmt.Sprintf(`{"child_steps":[{"id":"ask","step_type":"prompt_call","model":%q,"prompt_template":"{{input}}"}]}`, model)
	id := srv.StoreAgent(t, accountID, name, def, "dynamic_input")
	if _, err := srv.S.ModelAlerts.CheckAgent(context.Background(), accountID, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// The catalog with its lifecycle badges and filters, a model's page with
// its usage and replacements, and the account's default model set and
// cleared (an owner may, a member may not).
func TestModelsCatalogAndDefault(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv, _ := startWithModels(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		p := b.get("/console/models")
		p.mustContain(t, `id="model-acme_old"`, `id="model-acme_new"`, `id="model-openai_gpt_4o_mini"`, "deprecated",
			"retiring "+daysFromNow(20), `replaced by <a href="/console/models/acme_new">`, "the server's default", "tools")
		old, err := api.GetModel(ctx, "acme_old")
		if err != nil {
			t.Fatal(err)
		}
		p.mustContain(t, `<td class="num">`+strconv.FormatFloat(*old.InputCredits, 'f', -1, 64)+`</td>`)
		p = b.get("/console/models?provider=acme&tools=1")
		p.mustContain(t, `id="model-acme_old"`)
		if strings.Contains(p.Body, `id="model-openai_gpt_4o_mini"`) {
			t.Fatal("the provider filter shows another provider's model")
		}

		p = b.get("/console/models/acme_old")
		p.mustContain(t, "Acme Old", "Recommended replacements", `href="/console/models/acme_new"`, "never used", "retires "+daysFromNow(20))
		if p := b.get("/console/models/no_such_model"); p.Status != http.StatusNotFound {
			t.Fatalf("an unknown model: %d", p.Status)
		}

		// The account's default: set, shown, refused for an unknown model, cleared.
		b.get("/console/models")
		b.post("/console/models/default", url.Values{"model_id": {"acme_new"}}).mustContain(t, "Saved the account&#39;s default model.", "this account's choice",
			`<option value="acme_new" selected>`)
		if def, err := api.GetDefaultModel(ctx); err != nil || def.AccountModelID == nil || *def.AccountModelID != "acme_new" || def.ModelID != "acme_new" {
			t.Fatalf("after setting: %+v %v", def, err)
		}
		b.get("/console/models").mustContain(t, "account default")
		if p := b.post("/console/models/default", url.Values{"model_id": {"no_such_model"}}); !strings.Contains(p.Body, `role="alert"`) {
			t.Fatalf("an unknown default: %d", p.Status)
		}
		member := newBrowser(t, srv)
		member.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		member.get("/console/models").mustContain(t, "acme_new")
		if p := member.post("/console/models/default", url.Values{"clear": {"1"}}); p.Status != http.StatusForbidden {
			t.Fatalf("a member clearing the default: %d", p.Status)
		}
		b.post("/console/models/default", url.Values{"model_id": {"acme_new"}, "clear": {"1"}}).mustContain(t, "the server's default")
		if def, err := api.GetDefaultModel(ctx); err != nil || def.AccountModelID != nil {
			t.Fatalf("after clearing: %+v %v", def, err)
		}

		// Another account's choice is its own.
		other := srv.NewTenant(t, "mallory")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		ob.get("/console/models")
		ob.post("/console/models/default", url.Values{"model_id": {"acme_old"}})
		if def, _ := api.GetDefaultModel(ctx); def.AccountModelID != nil {
			t.Fatalf("another account set this one's default: %+v", def)
		}
	})
}

// Model alerts: listed with their agents, marked read one by one and all
// at once; another account sees none and cannot mark them.
func TestModelAlertsPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv, _ := startWithModels(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agentOnModel(t, srv, srv.AccountID, "Old timer", "acme_old")
		agentOnModel(t, srv, srv.AccountID, "Second", "acme_old")
		other := srv.NewTenant(t, "mallory")
		agentOnModel(t, srv, other.AccountID, "Mallory's", "acme_old")
		l, err := api.ListModelAlerts(ctx, client.ModelAlertListOptions{})
		if err != nil || len(l.Items) != 2 {
			t.Fatalf("model alerts: %+v %v", l, err)
		}
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		p := b.get("/console/models/alerts")
		p.mustContain(t, "model-alerts-table", "2 unread of 2", "Old timer", "Second", "Acme Old", "→ Acme New", l.Items[0].AlertType)
		if strings.Contains(p.Body, "Mallory") {
			t.Fatal("another account's alert is listed")
		}
		b.get("/console/models").mustContain(t, "2 unread model alerts")

		first := l.Items[0].ID
		p = b.post("/console/models/alerts/"+first+"/read", url.Values{"back": {"/console/models/alerts?unread=1"}})
		p.mustContain(t, "Marked the alert read.", "1 unread of 1")
		if p.URL != "/console/models/alerts" || strings.Contains(p.Body, `id="model-alert-`+first+`"`) {
			t.Fatalf("after reading: at %s", p.URL)
		}
		if n, err := api.ModelAlertUnreadCount(ctx); err != nil || n != 1 {
			t.Fatalf("unread after one read: %d %v", n, err)
		}

		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		if p := ob.get("/console/models/alerts"); strings.Contains(p.Body, "Old timer") || !strings.Contains(p.Body, "Mallory") {
			t.Fatal("the other account's list")
		}
		if p := ob.post("/console/models/alerts/"+l.Items[1].ID+"/read", nil); p.Status != http.StatusNotFound {
			t.Fatalf("another account marking an alert read: %d", p.Status)
		}
		if n, _ := api.ModelAlertUnreadCount(ctx); n != 1 {
			t.Fatalf("another account marked an alert read: %d unread", n)
		}

		b.post("/console/models/alerts/read-all", nil).mustContain(t, "Marked every alert read.", "0 unread of 2")
		if n, _ := api.ModelAlertUnreadCount(ctx); n != 0 {
			t.Fatalf("unread after marking all: %d", n)
		}
		if n, _ := apiClient(t, srv, other.Key).ModelAlertUnreadCount(ctx); n != 1 {
			t.Fatalf("marking all read reached another account: %d", n)
		}
	})
}

// The playground: one prompt across three models (two fake providers on
// loopback and the offline model), judged by an evaluator; the page shows
// the answers side by side with scores and the best; the refusals are the
// form's; another account cannot see or cancel it.
func TestPlaygroundPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv, fakes := startWithModels(t, d)
		// The answers differ against the reference, so one is strictly
		// best (equal scores name no best model).
		fakes.Anthropic.SetDefault(fakellm.Reply{Text: "Paris.", Usage: fakellm.Usage{Input: 22, Output: 9}})
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/models/playground").mustContain(t, `value="openai_gpt_4o_mini"`, `value="agentry_offline"`, "No experiment in the last 30 days.")

		p := b.post("/console/models/playground", url.Values{"prompt": {"What is the capital of France?"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "model_ids") || !strings.Contains(p.Body, "What is the capital of France?") {
			t.Fatalf("no models: %d\n%s", p.Status, p.Body)
		}
		p = b.post("/console/models/playground", url.Values{"prompt": {"What is the capital of France?"},
			"system_prompt":   {"Answer in one sentence. France is a country in Europe; its capital is Paris."},
			"model_ids":       {"agentry_offline", "openai_gpt_4o_mini", "anthropic_claude_haiku_4_5"},
			"evaluation_mode": {"prompt"}, "evaluator_model_id": {"agentry_offline"}, "evaluation_complexity": {"complex"},
			"reference": {"Paris is the capital of France."}})
		if p.Status != http.StatusOK || !strings.HasPrefix(p.URL, "/console/models/playground/") {
			t.Fatalf("create: %d at %s", p.Status, p.URL)
		}
		id := strings.TrimPrefix(p.URL, "/console/models/playground/")
		e, err := api.WaitExperiment(ctx, id, 50*time.Millisecond, 30*time.Second)
		if err != nil || e.Status != client.ExperimentCompleted {
			t.Fatalf("experiment: %+v %v", e, err)
		}
		res, err := e.Results()
		if err != nil || res == nil || res.Evaluation == nil || res.Evaluation.BestModelID == nil {
			t.Fatalf("results: %+v %v", res, err)
		}
		page := b.get("/console/models/playground/" + id)
		page.mustContain(t, "What is the capital of France?", `id="result-openai_gpt_4o_mini"`, `id="result-anthropic_claude_haiku_4_5"`,
			`id="result-agentry_offline"`, "Paris is the capital of France.", "<pre>Paris.</pre>",
			"Best answer: <strong>"+*res.Evaluation.BestModelID+"</strong>", `class="card best" id="result-`+*res.Evaluation.BestModelID+`"`,
			"Score ", `<rect class="fill"`, "completed")
		if strings.Contains(page.Body, "hx-trigger") || strings.Contains(page.Body, "/cancel") {
			t.Fatal("a finished experiment's page still polls or offers cancelling")
		}
		frag := b.get("/console/models/playground/" + id + "/results")
		frag.mustContain(t, `<div id="experiment-results">`, "Best answer")
		if strings.Contains(frag.Body, "<html") {
			t.Fatal("the results fragment is a whole page")
		}
		b.get("/console/models/playground").mustContain(t, `href="/console/models/playground/`+id+`"`)

		// The calls count as the account's use of the models.
		u, err := api.GetModelUsage(ctx, "openai_gpt_4o_mini")
		if err != nil || u.Calls < 1 {
			t.Fatalf("usage: %+v %v", u, err)
		}
		b.get("/console/models/openai_gpt_4o_mini").mustContain(t, fmt.Sprintf(`<span class="big">%d</span> calls, the last`, u.Calls))

		// The advanced mode: a malformed template is the API's 422, shown
		// with the form kept; a good one is sent as written and shown.
		p = b.post("/console/models/playground", url.Values{"prompt": {"Capital?"}, "model_ids": {"agentry_offline"},
			"evaluation_mode": {"manual"}, "json_template": {`{"messages": "not a list"}`}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "json_template") || !strings.Contains(p.Body, "not a list") {
			t.Fatalf("bad template: %d\n%s", p.Status, p.Body)
		}
		tmpl := `{"messages": [{"role": "user", "content": "Question: {{prompt}}"}], "max_tokens": 50}`
		p = b.post("/console/models/playground", url.Values{"prompt": {"Capital?"}, "model_ids": {"agentry_offline"},
			"evaluation_mode": {"manual"}, "json_template": {tmpl}})
		if p.Status != http.StatusOK || !strings.HasPrefix(p.URL, "/console/models/playground/") {
			t.Fatalf("create with a template: %d at %s\n%s", p.Status, p.URL, p.Body)
		}
		tid := strings.TrimPrefix(p.URL, "/console/models/playground/")
		te, err := api.WaitExperiment(ctx, tid, 50*time.Millisecond, 30*time.Second)
		if err != nil || te.JSONTemplate == nil || *te.JSONTemplate != tmpl {
			t.Fatalf("experiment with a template: %+v %v", te, err)
		}
		b.get("/console/models/playground/"+tid).mustContain(t, "JSON template (advanced mode)", "Question: {{prompt}}")

		other := srv.NewTenant(t, "mallory")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		for _, path := range []string{"/console/models/playground/" + id, "/console/models/playground/" + id + "/results"} {
			if p := ob.get(path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "capital of France") {
				t.Errorf("GET %s as another account: %d", path, p.Status)
			}
		}
		ob.get("/console/models/playground")
		if p := ob.post("/console/models/playground/"+id+"/cancel", nil); p.Status != http.StatusNotFound {
			t.Errorf("cancel as another account: %d", p.Status)
		}
	})
}
