package api_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestAgentTemplatesListing: the listing marks templates whose workflow
// uses step types this server lacks (knowledge, mail) as unavailable, per
// trigger, and they become available once their steps are registered.
func TestAgentTemplatesListing(t *testing.T) {
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
		if tm := got["retrieval_example"]; tm.Available || !tm.NeedsKnowledgeBase || len(tm.UnavailableStepTypes) != 1 || tm.UnavailableStepTypes[0] != "retrieval" {
			t.Errorf("retrieval_example: %+v", tm)
		}
		if tm := got["content_change_notifier"]; tm.Available {
			t.Errorf("content_change_notifier loads content, which is not available yet: %+v", tm)
		}
		// summarizer runs on an input, but not yet on new content.
		for _, tr := range got["summarizer"].Triggers {
			if want := tr.TriggerType != "new_content"; tr.Available != want {
				t.Errorf("summarizer for %s: available %v, want %v (%v)", tr.TriggerType, tr.Available, want, tr.UnavailableStepTypes)
			}
		}

		// When the knowledge area lands and registers its step, the
		// template becomes normal.
		s.S.Runs.Engine.Registry.Register(def.StepRetrieval, engine.HandlerFunc(func(context.Context, *engine.Exec) (engine.Result, error) {
			return engine.Result{}, errors.New("a stand-in for the knowledge area")
		}))
		if tm := list()["retrieval_example"]; !tm.Available || len(tm.UnavailableStepTypes) != 0 {
			t.Errorf("retrieval_example after its step is registered: %+v", tm)
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
