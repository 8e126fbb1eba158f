package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

type modelGroup struct {
	Provider string                  `json:"provider"`
	Models   []catalog.ModelResponse `json:"models"`
}

func listModels(t *testing.T, s *testserver.Server, query string) []modelGroup {
	t.Helper()
	r := s.Do(t, "GET", "/models"+query, s.Key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /models%s: %d %s", query, r.Status, r.Body)
	}
	var groups []modelGroup
	r.JSON(t, &groups)
	return groups
}

func everyModel(groups []modelGroup, fn func(m catalog.ModelResponse) bool) (n int, ok bool) {
	for _, g := range groups {
		for _, m := range g.Models {
			n++
			if g.Provider != m.Provider || !fn(m) {
				return n, false
			}
		}
	}
	return n, true
}

func hasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func TestModelCatalog(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)

		all := listModels(t, s, "")
		if len(all) < 3 || all[0].Provider != "agentry" {
			t.Fatalf("groups: %d, first %q", len(all), all[0].Provider)
		}
		total, ok := everyModel(all, func(m catalog.ModelResponse) bool { return m.Enabled && m.ID == m.ModelID })
		if !ok || total < 20 {
			t.Fatalf("%d models, all enabled: %v", total, ok)
		}
		if _, ok := everyModel(all, func(m catalog.ModelResponse) bool { return m.ID != "agentry_offline_embed" }); !ok {
			t.Error("embedding models are not prompt models")
		}

		// Every filter the contract declares.
		cases := []struct {
			query string
			want  func(m catalog.ModelResponse) bool
		}{
			{"?provider=openai", func(m catalog.ModelResponse) bool { return m.Provider == "openai" }},
			{"?provider=OpenAI", func(m catalog.ModelResponse) bool { return m.Provider == "openai" }},
			{"?supports_tool_use=true", func(m catalog.ModelResponse) bool { return m.SupportsToolUse }},
			{"?supports_tool_use=false", func(m catalog.ModelResponse) bool { return !m.SupportsToolUse }},
			{"?supports_thinking=true", func(m catalog.ModelResponse) bool { return m.SupportsThinking }},
			{"?supports_input_media=image", func(m catalog.ModelResponse) bool { return hasPrefix(m.SupportedInputMedia, "image/") }},
			{"?supports_input_media=application/pdf", func(m catalog.ModelResponse) bool { return hasPrefix(m.SupportedInputMedia, "application/pdf") }},
			{"?supports_output_media=image", func(m catalog.ModelResponse) bool { return hasPrefix(m.SupportedOutputMedia, "image/") }},
			{"?provider=anthropic&supports_thinking=true", func(m catalog.ModelResponse) bool { return m.Provider == "anthropic" && m.SupportsThinking }},
		}
		for _, c := range cases {
			n, ok := everyModel(listModels(t, s, c.query), c.want)
			if !ok || n == 0 || n >= total {
				t.Errorf("%s: %d models, all matching: %v", c.query, n, ok)
			}
		}
		if g := listModels(t, s, "?provider=nobody"); len(g) != 0 {
			t.Errorf("unknown provider: %d groups", len(g))
		}
		for _, q := range []string{"?supports_input_media=hologram", "?supports_output_media=image/", "?supports_tool_use=maybe"} {
			r := s.Do(t, "GET", "/models"+q, s.Key, nil)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"query"`) {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
		// At the strict version, the list is the canonical envelope.
		r := s.Do(t, "GET", "/models?provider=openai", s.Key, nil, "Service-Version: 2026-07-27")
		var env struct {
			Data       []modelGroup   `json:"data"`
			Pagination map[string]any `json:"pagination"`
		}
		r.JSON(t, &env)
		if r.Status != 200 || len(env.Data) != 1 || env.Data[0].Provider != "openai" || env.Pagination["total"] != 1.0 {
			t.Errorf("strict: %d %.300s", r.Status, r.Body)
		}

		// Details, by catalog id or provider name; last_used is the
		// account's latest metered model.
		var m catalog.ModelResponse
		r = s.Do(t, "GET", "/models/openai_gpt_4o/details", s.Key, nil)
		r.JSON(t, &m)
		if r.Status != 200 || m.ID != "openai_gpt_4o" || m.Input == nil || m.LastUsed {
			t.Fatalf("details: %d %.300s", r.Status, r.Body)
		}
		if _, _, err := billing.NewCredits(s.DB).RecordUsage(context.Background(), billing.Usage{AccountID: s.AccountID, Purpose: "prompt_call",
			Model: "openai_gpt_4o", InputTokens: 10, OutputTokens: 5, Credits: 1}); err != nil {
			t.Fatal(err)
		}
		r = s.Do(t, "GET", "/models/gpt-4o/details", s.Key, nil)
		r.JSON(t, &m)
		if r.Status != 200 || m.ID != "openai_gpt_4o" || !m.LastUsed {
			t.Fatalf("details by API name, last used: %d %.300s", r.Status, r.Body)
		}
		other := s.NewTenant(t, "other")
		r = s.Do(t, "GET", "/models/openai_gpt_4o/details", other.Key, nil)
		r.JSON(t, &m)
		if m.LastUsed {
			t.Error("last_used leaked across accounts")
		}
		if r := s.Do(t, "GET", "/models/no_such_model/details", s.Key, nil); r.Status != http.StatusNotFound || !strings.Contains(string(r.Body), `"detail"`) {
			t.Errorf("unknown model: %d %s", r.Status, r.Body)
		}

		// Recommendations honour the requirement filters.
		var rec catalog.RecommendationsResponse
		r = s.Do(t, "GET", "/models/openai_gpt_4o/recommendations", s.Key, nil)
		r.JSON(t, &rec)
		if r.Status != 200 || rec.CurrentModelID != "openai_gpt_4o" || len(rec.Upgrades) == 0 || len(rec.Alternatives) == 0 {
			t.Fatalf("recommendations: %d %.500s", r.Status, r.Body)
		}
		for _, u := range rec.Upgrades {
			if u.Provider != "openai" || u.RecommendationType != "upgrade" || u.Reason == "" {
				t.Errorf("upgrade %+v", u)
			}
		}
		for _, a := range rec.Alternatives {
			if a.Provider == "openai" || a.RecommendationType != "alternative" {
				t.Errorf("alternative %+v", a)
			}
		}
		r = s.Do(t, "GET", "/models/openai_gpt_4o/recommendations?require_thinking=true&min_context_tokens=300000&require_structured_output=true&require_tool_use=true&min_output_tokens=32000", s.Key, nil)
		r.JSON(t, &rec)
		lists := append(append(append([]catalog.RecommendationResponse{}, rec.Upgrades...), rec.SameProvider...), rec.Alternatives...)
		if rec.Successor != nil {
			lists = append(lists, *rec.Successor)
		}
		if r.Status != 200 || len(lists) == 0 {
			t.Fatalf("filtered recommendations: %d %.300s", r.Status, r.Body)
		}
		for _, x := range lists {
			if !x.SupportsThinking || !x.SupportsToolUse || !x.SupportsStructuredOutput || x.MaxContextTokens < 300000 || x.MaxOutputTokens < 32000 {
				t.Errorf("%s does not meet the requirements", x.ID)
			}
		}
		if r := s.Do(t, "GET", "/models/nope/recommendations", s.Key, nil); r.Status != http.StatusNotFound {
			t.Errorf("unknown model: %d", r.Status)
		}
		if r := s.Do(t, "GET", "/models/openai_gpt_4o/recommendations?min_context_tokens=lots", s.Key, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("bad integer: %d", r.Status)
		}

		// Generation tiers, legacy and strict.
		var tiers struct {
			Tiers []catalog.GenerationTier `json:"tiers"`
		}
		r = s.Do(t, "GET", "/models/generation-tiers", s.Key, nil)
		r.JSON(t, &tiers)
		if r.Status != 200 || len(tiers.Tiers) < 3 || tiers.Tiers[0].ModelID == "" {
			t.Fatalf("tiers: %d %.300s", r.Status, r.Body)
		}
		var tenv struct {
			Data       []catalog.GenerationTier `json:"data"`
			Pagination struct{ Total int }      `json:"pagination"`
		}
		r = s.Do(t, "GET", "/models/generation-tiers", s.Key, nil, "Service-Version: 2026-07-27")
		r.JSON(t, &tenv)
		if len(tenv.Data) != len(tiers.Tiers) || tenv.Pagination.Total != len(tiers.Tiers) {
			t.Errorf("strict tiers: %.300s", r.Body)
		}
		// No credentials, no catalog.
		if r := s.Do(t, "GET", "/models", "", nil); r.Status != http.StatusUnauthorized {
			t.Errorf("anonymous: %d", r.Status)
		}
	})
}

// dateIn renders a date days from now (negative: ago) for test catalogs.
func dateIn(days int) string {
	return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly)
}
