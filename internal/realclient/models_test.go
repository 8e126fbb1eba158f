package realclient_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// mdRetiringModel is a test model over the built-in catalog that retires
// in 20 days, so an agent using it gets an alert.
func mdRetiringModel() []byte {
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	return []byte(fmt.Sprintf(`models:
  - {id: acme_old, api_name: acme-old, name: Acme Old, provider: acme, family: acme, family_generation: 1, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s, deprecated_at: %s, sunset_at: %s}
`, day(-300), day(-30), day(20)))
}

// mdAlertedAgents stores n agents on the retiring model and raises their
// alerts, as the agents area does on save.
func mdAlertedAgents(t *testing.T, ts *testserver.Server, n int) {
	t.Helper()
	for range n {
		id := makeAgent(t, ts, `{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"acme_old","prompt_template":"{{input}}"}]}`)
		if _, err := ts.S.ModelAlerts.CheckAgent(ctx, ts.AccountID, id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestModelsClient(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		_, models := playgroundtest.Start(t, mdRetiringModel())
		ts := testserver.Start(t, d, models)
		c := newRunClient(t, ts)
		strict := client.WithRequestVersion(client.LatestVersion)

		no := false
		for _, opts := range [][]client.CallOption{nil, {strict}} {
			groups, err := c.ListModels(ctx, client.ModelFilter{Provider: "openai", SupportsToolUse: &no}, opts...)
			if err != nil || len(groups) != 1 || groups[0].Provider != "openai" || len(groups[0].Models) == 0 {
				t.Fatalf("ListModels: %+v %v", groups, err)
			}
			for _, m := range groups[0].Models {
				if m.SupportsToolUse {
					t.Errorf("%s supports tool use", m.ID)
				}
			}
		}
		all, err := c.ListModels(ctx, client.ModelFilter{})
		if err != nil || len(all) < 3 {
			t.Fatalf("all models: %d %v", len(all), err)
		}
		_, err = c.ListModels(ctx, client.ModelFilter{SupportsInputMedia: "smell"})
		var ve *client.ValidationError
		if !errors.As(err, &ve) || ve.Items[0].Field() != "query.supports_input_media" {
			t.Errorf("bad media: %v", err)
		}

		m, err := c.GetModel(ctx, "anthropic_claude_haiku_4_5")
		if err != nil || m.Provider != "anthropic" || m.InputCredits == nil || len(m.SupportedInputMedia) == 0 || len(m.Variants) == 0 {
			t.Fatalf("GetModel: %+v %v", m, err)
		}
		if _, err := c.GetModel(ctx, "nope"); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown model: %v", err)
		}

		rec, err := c.Recommendations(ctx, "openai_gpt_4o", client.ModelRequirements{Thinking: true, MinContextTokens: 200000})
		if err != nil || rec.CurrentModelID != "openai_gpt_4o" || len(rec.Alternatives)+len(rec.Upgrades)+len(rec.SameProvider) == 0 {
			t.Fatalf("Recommendations: %+v %v", rec, err)
		}
		for _, r := range append(append(rec.Upgrades, rec.SameProvider...), rec.Alternatives...) {
			if !r.SupportsThinking || r.MaxContextTokens < 200000 {
				t.Errorf("%s ignores the requirements", r.ID)
			}
		}

		for _, opts := range [][]client.CallOption{nil, {strict}} {
			tiers, err := c.GenerationTiers(ctx, opts...)
			if err != nil || len(tiers) < 3 || tiers[0].ModelID == "" || tiers[0].Tier == "" {
				t.Fatalf("GenerationTiers: %+v %v", tiers, err)
			}
		}

		// Alerts: paged over, in both versions.
		mdAlertedAgents(t, ts, 3)
		for _, opts := range [][]client.CallOption{nil, {strict}} {
			var seen []client.ModelAlert
			for a, err := range c.ModelAlerts(ctx, client.ModelAlertListOptions{Limit: 2}, opts...) {
				if err != nil {
					t.Fatal(err)
				}
				seen = append(seen, a)
			}
			if len(seen) != 3 || seen[0].PromptModelID != "acme_old" || seen[0].AlertType != "model_sunset" || seen[0].AgentID == nil {
				t.Fatalf("ModelAlerts: %+v", seen)
			}
		}
		page, err := c.ListModelAlerts(ctx, client.ModelAlertListOptions{Offset: 2, Limit: 2})
		if err != nil || len(page.Items) != 1 || page.Total != 3 || page.HasNext {
			t.Fatalf("ListModelAlerts: %+v %v", page, err)
		}
		if n, err := c.ModelAlertUnreadCount(ctx); err != nil || n != 3 {
			t.Fatalf("unread: %d %v", n, err)
		}
		if err := c.MarkModelAlertRead(ctx, page.Items[0].ID); err != nil {
			t.Fatal(err)
		}
		unread, err := c.ListModelAlerts(ctx, client.ModelAlertListOptions{UnreadOnly: true})
		if err != nil || unread.Total != 2 {
			t.Fatalf("unread only: %+v %v", unread, err)
		}
		byAgent, _ := c.ListModelAlerts(ctx, client.ModelAlertListOptions{AgentID: *page.Items[0].AgentID})
		if byAgent.Total != 1 || byAgent.Items[0].ReadAt == nil {
			t.Errorf("by agent: %+v", byAgent.Items)
		}
		if err := c.MarkModelAlertRead(ctx, "0190a3b4-0000-7000-8000-000000000000"); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown alert: %v", err)
		}
		if err := c.MarkAllModelAlertsRead(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := c.ModelAlertUnreadCount(ctx); n != 0 {
			t.Errorf("unread after mark all: %d", n)
		}
		// The strict version refuses parameters the operation lacks.
		_, err = c.ListModelAlerts(ctx, client.ModelAlertListOptions{}, strict, client.WithQuery(map[string][]string{"page": {"1"}}))
		if !errors.As(err, &ve) || !strings.Contains(ve.Items[0].Field(), "page") {
			t.Errorf("page at the strict version: %v", err)
		}
	})
}
