package api_test

import (
	"net/http"
	"testing"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestAgentTemplatesListing: the listing marks templates whose workflow
// uses step types this server lacks (knowledge, mail) as unavailable, per
// trigger, and they become available once their steps are registered.
func TestAgentTemplatesListing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		list := func() map[string]api.AgentTemplateResponse {
			r := s.Do(t, "GET", "/agents/templates", s.Key, nil)
			wantStatus(t, r, http.StatusOK)
			var items []api.AgentTemplateResponse
			r.JSON(t, &items)
			out := map[string]api.AgentTemplateResponse{}
			for _, it := range items {
				out[it.Name] = it
			}
			return out
		}
		got := list()
		if len(got) != len(def.TemplateInfos()) {
			t.Fatalf("%d templates listed", len(got))
		}
		if tm := got["simple_qa"]; !tm.Available || len(tm.UnavailableStepTypes) != 0 || tm.DefaultTriggerType != "dynamic_input" {
			t.Errorf("simple_qa: %+v", tm)
		}
		// The knowledge area registers retrieval and the content steps, so
		// its templates run, on new content too.
		if tm := got["retrieval_example"]; !tm.Available || !tm.NeedsKnowledgeBase || len(tm.UnavailableStepTypes) != 0 {
			t.Errorf("retrieval_example: %+v", tm)
		}
		if tm := got["content_change_notifier"]; !tm.Available {
			t.Errorf("content_change_notifier: %+v", tm)
		}
		for _, tr := range got["summarizer"].Triggers {
			if !tr.Available {
				t.Errorf("summarizer for %s: unavailable (%v)", tr.TriggerType, tr.UnavailableStepTypes)
			}
		}

		// The strict version answers the envelope.
		r := s.Do(t, "GET", "/agents/templates", s.Key, nil, "Service-Version: 2026-07-27")
		var env api.Envelope[api.AgentTemplateResponse]
		r.JSON(t, &env)
		if len(env.Data) != len(def.TemplateInfos()) {
			t.Errorf("envelope: %s", r.Body)
		}
	})
}
