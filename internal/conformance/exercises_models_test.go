package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Models: the catalog, generation tiers and lifecycle alerts.

// mdAlerts records n alerts for the exercise's account, as the lifecycle
// sweep would, and returns the newest one's id as alert_id.
func mdAlerts(n int) func(t *testing.T, e *Env) Vars {
	return func(t *testing.T, e *Env) Vars {
		var id string
		for i := range n {
			a, _, err := e.S.ModelAlerts.StoreAlert(context.Background(), modelalerts.ModelAlert{AccountID: e.Tenant.AccountID,
				AgentID: "0190a3b4-0000-7000-8000-00000000000" + string(rune('a'+i)), ModelID: "openai_gpt_4_turbo", ModelName: "GPT-4 Turbo",
				Type: "model_sunset", Message: "GPT-4 Turbo was retired; calls to it fail. Switch to GPT-4.1.",
				SuccessorModelID: "openai_gpt_4_1", SuccessorModelName: "GPT-4.1", DedupeKey: "conformance|" + string(rune('a'+i))})
			if err != nil {
				t.Fatal(err)
			}
			id = a.ID
		}
		return Vars{"alert_id": id}
	}
}

// mdUnread expects GET /models/alerts/unread-count to say n.
func mdUnread(n int) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, e *Env, _ testserver.Response) {
		var c struct{ Count int }
		e.Do(t, http.MethodGet, "/models/alerts/unread-count", nil).JSON(t, &c)
		if c.Count != n {
			t.Errorf("unread count %d, want %d", c.Count, n)
		}
	}
}

// mdGroups checks every model of GET /models against ok.
func mdGroups(ok func(m map[string]any) bool) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		var groups []struct {
			Provider string           `json:"provider"`
			Models   []map[string]any `json:"models"`
		}
		r.JSON(t, &groups)
		if len(groups) == 0 {
			t.Fatal("no models")
		}
		for _, g := range groups {
			for _, m := range g.Models {
				if !ok(m) {
					t.Errorf("%v does not match the filter", m["id"])
				}
			}
		}
	}
}

func mdAlertTotal(n int) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		var l struct {
			Alerts []json.RawMessage `json:"alerts"`
			Total  int               `json:"total"`
		}
		r.JSON(t, &l)
		if l.Total != n {
			t.Errorf("total %d, want %d", l.Total, n)
		}
	}
}

func init() {
	strict := []string{version.Header + ": " + version.StrictEnvelope}
	long := strings.Repeat("m", 201)
	register(
		Exercise{Op: "GET /models", Name: "all enabled models by provider", Status: http.StatusOK,
			Check: mdGroups(func(m map[string]any) bool { return m["enabled"] == true })},
		Exercise{Op: "GET /models", Name: "provider and tool use", Path: "/models?provider=anthropic&supports_tool_use=true", Status: http.StatusOK,
			Check: mdGroups(func(m map[string]any) bool { return m["provider"] == "anthropic" && m["supports_tool_use"] == true })},
		Exercise{Op: "GET /models", Name: "thinking", Path: "/models?supports_thinking=true", Status: http.StatusOK,
			Check: mdGroups(func(m map[string]any) bool { return m["supports_thinking"] == true })},
		Exercise{Op: "GET /models", Name: "input media by MIME", Path: "/models?supports_input_media=image/png", Status: http.StatusOK},
		Exercise{Op: "GET /models", Name: "image generators", Path: "/models?supports_output_media=image", Status: http.StatusOK,
			Check: mdGroups(func(m map[string]any) bool {
				return m["generation_unit_label"] != nil || m["supported_output_media"] != nil
			})},
		Exercise{Op: "GET /models", Name: "strict envelope", Headers: strict, Status: http.StatusOK,
			Schema: Envelope("schemas__model_responses__ProviderGroupResponse")},
		Exercise{Op: "GET /models", Name: "unknown media kind", Path: "/models?supports_input_media=hologram", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "supports_input_media")},
		Exercise{Op: "GET /models", Name: "not a boolean", Path: "/models?supports_thinking=sometimes", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "supports_thinking")},

		Exercise{Op: "GET /models/{model_id}/details", Name: "by catalog id", Path: "/models/openai_gpt_4_1/details", Status: http.StatusOK},
		Exercise{Op: "GET /models/{model_id}/details", Name: "the offline model", Path: "/models/agentry_offline/details", Status: http.StatusOK},
		Exercise{Op: "GET /models/{model_id}/details", Name: "unknown model", Path: "/models/no_such_model/details", Status: http.StatusNotFound},
		Exercise{Op: "GET /models/{model_id}/details", Name: "id too long", Path: "/models/" + long + "/details", Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /models/{model_id}/recommendations", Name: "a model with successors", Path: "/models/openai_gpt_4o/recommendations", Status: http.StatusOK},
		Exercise{Op: "GET /models/{model_id}/recommendations", Name: "with requirements",
			Path:   "/models/anthropic_claude_haiku_4_5/recommendations?require_tool_use=true&require_structured_output=true&require_thinking=true&min_context_tokens=100000&min_output_tokens=8000",
			Status: http.StatusOK},
		Exercise{Op: "GET /models/{model_id}/recommendations", Name: "unknown model", Path: "/models/no_such_model/recommendations", Status: http.StatusNotFound},
		Exercise{Op: "GET /models/{model_id}/recommendations", Name: "not an integer", Path: "/models/openai_gpt_4o/recommendations?min_output_tokens=many",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "min_output_tokens")},

		Exercise{Op: "GET /models/generation-tiers", Name: "tiers", Status: http.StatusOK},
		Exercise{Op: "GET /models/generation-tiers", Name: "strict envelope", Headers: strict, Status: http.StatusOK,
			Schema: Envelope("GenerationTierResponse")},

		Exercise{Op: "GET /models/alerts", Name: "no alerts", Status: http.StatusOK, Check: mdAlertTotal(0)},
		Exercise{Op: "GET /models/alerts", Name: "alerts, a page", Setup: mdAlerts(3), Path: "/models/alerts?limit=2&offset=1&unread_only=true", Status: http.StatusOK,
			Check: mdAlertTotal(3)},
		Exercise{Op: "GET /models/alerts", Name: "by agent", Setup: mdAlerts(2), Path: "/models/alerts?agent_id=0190a3b4-0000-7000-8000-00000000000a", Status: http.StatusOK,
			Check: mdAlertTotal(1)},
		Exercise{Op: "GET /models/alerts", Name: "strict envelope", Setup: mdAlerts(2), Headers: strict, Status: http.StatusOK,
			Schema: Envelope("routers__api__model_lifecycle__ModelAlertResponse")},
		Exercise{Op: "GET /models/alerts", Name: "page is refused at the strict version", Path: "/models/alerts?page=2", Headers: strict,
			Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "page")},
		Exercise{Op: "GET /models/alerts", Name: "limit too large", Path: "/models/alerts?limit=101", Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "limit")},

		Exercise{Op: "GET /models/alerts/unread-count", Name: "count", Setup: mdAlerts(2), Status: http.StatusOK,
			Check: func(t *testing.T, e *Env, r testserver.Response) { mdUnread(2)(t, e, r) }},

		Exercise{Op: "PATCH /models/alerts/{alert_id}/read", Name: "dismiss one", Setup: mdAlerts(2), Status: http.StatusNoContent,
			Check: mdUnread(1)},
		Exercise{Op: "PATCH /models/alerts/{alert_id}/read", Name: "unknown alert", Path: "/models/alerts/0190a3b4-0000-7000-8000-000000000000/read",
			Status: http.StatusNotFound},
		Exercise{Op: "PATCH /models/alerts/{alert_id}/read", Name: "malformed id", Path: "/models/alerts/nope/read",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("path", "alert_id")},

		Exercise{Op: "POST /models/alerts/mark-all-read", Name: "dismiss all", Setup: mdAlerts(3), Status: http.StatusNoContent,
			Check: mdUnread(0)},
		Exercise{Op: "POST /models/alerts/mark-all-read", Name: "nothing to dismiss", Status: http.StatusNoContent},
	)
}
