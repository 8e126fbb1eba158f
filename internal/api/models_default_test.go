package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// askTemplateAgent creates a simple_qa agent from the template, changing
// nothing, runs it on a question and returns the finished run.
func askTemplateAgent(t *testing.T, s *testserver.Server, key string) runs.RunResponse {
	t.Helper()
	a := createAgent(t, s, key, map[string]any{"name": "QA", "agent_template": "simple_qa"})
	r := s.Do(t, http.MethodPost, "/agents/"+a.ID+"/runs", key, map[string]any{"input": "What is the capital of France?"})
	var start runs.RunResponse
	r.JSON(t, &start)
	if r.Status != http.StatusOK {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	done := waitRun(t, s, key, start.RunID)
	if done.Status != runs.RunCompleted {
		t.Fatalf("run %s: %s", done.Status, s.Do(t, http.MethodGet, "/agents/runs/"+start.RunID+"?include_step_outputs=true", key, nil).Body)
	}
	return done
}

// chatModels returns the model names the fake server was asked for.
func chatModels(f *fakellm.Server) []string {
	var out []string
	for _, r := range f.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			m, _ := r.JSON()["model"].(string)
			out = append(out, m)
		}
	}
	return out
}

func modelCalls(t *testing.T, s *testserver.Server, key, model string) int64 {
	t.Helper()
	var u api.ModelUsageResponse
	r := s.Do(t, http.MethodGet, "/models/"+model+"/usage", key, nil)
	r.JSON(t, &u)
	if r.Status != http.StatusOK {
		t.Fatalf("usage of %s: %d %s", model, r.Status, r.Body)
	}
	return u.Calls
}

// TestConfiguredProviderAnswersByDefault: with OPENAI_API_KEY and
// OPENAI_BASE_URL set and nothing else, a simple_qa agent made from the
// template is answered by the configured provider's default model and the
// call is metered. It used to be answered by the offline stand-in.
func TestConfiguredProviderAnswersByDefault(t *testing.T) {
	fake := fakellm.NewOpenAI(t)
	fake.SetDefault(fakellm.Reply{Text: "Paris, from the configured model.", Usage: fakellm.Usage{Input: 40, Output: 8}})
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", fake.URL)
	t.Setenv("ANTHROPIC_API_KEY", "")
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		before := len(chatModels(fake))
		s := testserver.Start(t, d)
		var def api.DefaultModelResponse
		r := s.Do(t, http.MethodGet, "/models/default", s.Key, nil)
		r.JSON(t, &def)
		if r.Status != http.StatusOK || def.Source != "server" || !strings.HasPrefix(def.ModelID, "openai_") ||
			!strings.Contains(def.ServerDefaultReason, "openai") {
			t.Fatalf("default model: %d %s", r.Status, r.Body)
		}
		done := askTemplateAgent(t, s, s.Key)
		if done.Output == nil || !strings.Contains(*done.Output, "from the configured model") {
			t.Fatalf("output %v, want the configured model's answer", done.Output)
		}
		asked := chatModels(fake)[before:]
		if len(asked) != 1 || !strings.HasPrefix(asked[0], "gpt-") {
			t.Fatalf("the fake OpenAI server was asked for %v", asked)
		}
		if n := modelCalls(t, s, s.Key, def.ModelID); n != 1 {
			t.Fatalf("%d metered calls to %s, want 1", n, def.ModelID)
		}
		if done.Credits == nil || *done.Credits <= 0 {
			t.Fatalf("run credits %v, want the call charged", done.Credits)
		}
	})
}

// TestAccountDefaultModel: an owner or admin sets the account's own
// default (an extension); it answers that account's template agents,
// not another account's; members cannot set it; a model nothing serves,
// an embedding model or an unknown one is a 422; null clears it.
func TestAccountDefaultModel(t *testing.T) {
	fake := fakellm.NewOpenAI(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", fake.URL)
	t.Setenv("ANTHROPIC_API_KEY", "")
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		other := s.NewTenant(t, "other")
		if _, err := billing.NewCredits(s.DB).Grant(context.Background(), other.AccountID, 1e6, "test", "room for a real model's estimate"); err != nil {
			t.Fatal(err)
		}
		var def api.DefaultModelResponse
		s.Do(t, http.MethodGet, "/models/default", s.Key, nil).JSON(t, &def)
		server := def.ServerModelID

		member := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		if r := s.Do(t, http.MethodPut, "/models/default", member, map[string]any{"model_id": "openai_gpt_4_1"}); r.Status != http.StatusForbidden {
			t.Fatalf("member set: %d %s", r.Status, r.Body)
		}
		for _, bad := range []string{"no_such_model", "agentry_offline_embed", "anthropic_claude_sonnet_4_6", strings.Repeat("x", 201)} {
			r := s.Do(t, http.MethodPut, "/models/default", s.Key, map[string]any{"model_id": bad})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("set %.20s: %d %s, want 422", bad, r.Status, r.Body)
			}
		}

		admin := s.IssueKey(t, s.AccountID, s.UserID, store.RoleAdmin)
		r := s.Do(t, http.MethodPut, "/models/default", admin, map[string]any{"model_id": "gpt-4.1"})
		r.JSON(t, &def)
		if r.Status != http.StatusOK || def.ModelID != "openai_gpt_4_1" || def.Source != "account" ||
			def.AccountModelID == nil || *def.AccountModelID != "openai_gpt_4_1" || def.ServerModelID != server {
			t.Fatalf("admin set: %d %s", r.Status, r.Body)
		}
		before := len(chatModels(fake))
		askTemplateAgent(t, s, s.Key)
		if asked := chatModels(fake)[before:]; len(asked) != 1 || asked[0] != "gpt-4.1" {
			t.Fatalf("with the account's default, the provider was asked for %v", asked)
		}

		// Another account keeps the server's default.
		var theirs api.DefaultModelResponse
		s.Do(t, http.MethodGet, "/models/default", other.Key, nil).JSON(t, &theirs)
		if theirs.ModelID != server || theirs.Source != "server" || theirs.AccountModelID != nil {
			t.Fatalf("other account's default: %+v", theirs)
		}
		before = len(chatModels(fake))
		askTemplateAgent(t, s, other.Key)
		if asked := chatModels(fake)[before:]; len(asked) != 1 || asked[0] == "gpt-4.1" {
			t.Fatalf("another account's agent asked for %v", asked)
		}

		r = s.Do(t, http.MethodPut, "/models/default", s.Key, map[string]any{"model_id": nil})
		r.JSON(t, &def)
		if r.Status != http.StatusOK || def.ModelID != server || def.Source != "server" || def.AccountModelID != nil {
			t.Fatalf("clear: %d %s", r.Status, r.Body)
		}
	})
}

// TestNothingConfiguredOfflineDefault: with no provider, the offline
// model answers and GET /models/default says so.
func TestNothingConfiguredOfflineDefault(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		var def api.DefaultModelResponse
		r := s.Do(t, http.MethodGet, "/models/default", s.Key, nil)
		r.JSON(t, &def)
		if def.ModelID != "agentry_offline" || !strings.Contains(def.ServerDefaultReason, "no model provider") {
			t.Fatalf("default: %s", r.Body)
		}
	})
}

// TestLocalOllamaDiscovered: a local Ollama (a fake one on loopback) is
// asked for its installed models at start; they are listed as
// ollama/<name> at price 0 and answer through its OpenAI-compatible
// endpoint, metered at zero.
func TestLocalOllamaDiscovered(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	ollama := fakellm.NewOllama(t, "llama3.2:latest", "nomic-embed-text:latest")
	ollama.SetDefault(fakellm.Reply{Text: "Paris, says the local model.", Usage: fakellm.Usage{Input: 30, Output: 6}})
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) {
			c.OllamaURL = ollama.URL
			c.DefaultModel = "ollama/llama3.2:latest"
		})
		r := s.Do(t, http.MethodGet, "/models?provider=ollama", s.Key, nil)
		var list []struct {
			Provider string `json:"provider"`
			Models   []struct {
				ID     string   `json:"id"`
				Input  *float64 `json:"input_credits_per_1000_tokens"`
				Output *float64 `json:"output_credits_per_1000_tokens"`
			} `json:"models"`
		}
		r.JSON(t, &list)
		// The embedding model is left out: it cannot answer prompts.
		if r.Status != http.StatusOK || len(list) != 1 || len(list[0].Models) != 1 || list[0].Models[0].ID != "ollama/llama3.2:latest" ||
			list[0].Models[0].Input == nil || *list[0].Models[0].Input != 0 || list[0].Models[0].Output == nil || *list[0].Models[0].Output != 0 {
			t.Fatalf("GET /models?provider=ollama: %d %s", r.Status, r.Body)
		}
		before := len(chatModels(ollama.Server))
		done := askTemplateAgent(t, s, s.Key)
		if done.Output == nil || !strings.Contains(*done.Output, "says the local model") {
			t.Fatalf("output %v, want the local model's answer", done.Output)
		}
		if asked := chatModels(ollama.Server)[before:]; len(asked) != 1 || asked[0] != "llama3.2:latest" {
			t.Fatalf("the fake Ollama was asked for %v", asked)
		}
		if n := modelCalls(t, s, s.Key, "ollama%2Fllama3.2:latest"); n != 1 {
			t.Fatalf("%d metered calls, want 1", n)
		}
	})
}
