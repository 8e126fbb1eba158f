package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func mustID(t *testing.T, r testserver.Response) string {
	t.Helper()
	var v struct{ ID string }
	r.JSON(t, &v)
	if v.ID == "" {
		t.Fatalf("no id: %d %s", r.Status, r.Body)
	}
	return v.ID
}

// Links: linking twice and unlinking what is not linked are silent;
// deleting a solution removes its links, never the resources.
func TestSolutionLinks(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		src := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Docs", "source_type": "custom_index"}))
		kb := mustID(t, s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{src}}))
		agent := mustID(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Helper", "agent_template": "retrieval_example", "knowledge_base_id": kb}))
		sol := mustID(t, s.Do(t, "POST", "/solutions", s.Key, map[string]any{"name": "Support"}))
		for i := 0; i < 2; i++ {
			wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/agents", s.Key, map[string]any{"ids": []string{agent, agent}}), http.StatusOK)
			wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/knowledge-bases", s.Key, map[string]any{"ids": []string{kb}}), http.StatusOK)
			wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/source-connections", s.Key, map[string]any{"ids": []string{src}}), http.StatusOK)
		}
		r := s.Do(t, "GET", "/solutions/"+sol, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var got struct {
			Agents []struct {
				ID string `json:"id"`
			} `json:"agents"`
			KnowledgeBases []struct {
				ID        string   `json:"id"`
				SourceIDs []string `json:"source_connection_ids"`
			} `json:"knowledge_bases"`
			SourceConnections []struct{ ID string } `json:"source_connections"`
		}
		r.JSON(t, &got)
		if len(got.Agents) != 1 || len(got.KnowledgeBases) != 1 || len(got.SourceConnections) != 1 ||
			fmt.Sprint(got.KnowledgeBases[0].SourceIDs) != "["+src+"]" {
			t.Fatalf("solution: %s", r.Body)
		}
		r = s.Do(t, "GET", "/solutions", s.Key, nil)
		if !strings.Contains(string(r.Body), `"agent_count":1,"knowledge_base_count":1,"source_connection_count":1`) {
			t.Errorf("summary counts: %s", r.Body)
		}
		// Unlinking an id that is not linked is ignored.
		other := mustID(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Other"}))
		wantStatus(t, s.Do(t, "DELETE", "/solutions/"+sol+"/agents", s.Key, map[string]any{"ids": []string{other}}), http.StatusOK)
		// The agent's export carries the link; an import (create) applies
		// it, an update does not.
		r = s.Do(t, "GET", "/agents/"+agent+"/export", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"name":"Support"`) {
			t.Errorf("export lacks the solution: %.1000s", r.Body)
		}
		export := string(r.Body)
		imported := mustID(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Imported", "agent_definition": rawJSON(export)}))
		wantStatus(t, s.Do(t, "PUT", "/agents/"+other, s.Key, map[string]any{"agent_definition": rawJSON(export)}), http.StatusOK)
		r = s.Do(t, "GET", "/solutions/"+sol, s.Key, nil)
		if !strings.Contains(string(r.Body), imported) || strings.Contains(string(r.Body), other) {
			t.Errorf("import links, update does not: %s", r.Body)
		}
		// Unlink, then delete: the resources remain.
		wantStatus(t, s.Do(t, "DELETE", "/solutions/"+sol+"/agents", s.Key, map[string]any{"ids": []string{agent}}), http.StatusOK)
		wantStatus(t, s.Do(t, "DELETE", "/solutions/"+sol, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "GET", "/solutions/"+sol, s.Key, nil), http.StatusNotFound)
		for _, p := range []string{"/agents/" + agent, "/knowledge_bases/" + kb, "/sources/" + src, "/agents/" + imported} {
			wantStatus(t, s.Do(t, "GET", p, s.Key, nil), http.StatusOK)
		}
	})
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// Deletions need confirm_deletions; declining changes nothing; a decided
// plan is neither accepted nor declined again; the history shows it all.
func TestPlanDeletionsAndDecline(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		src := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Old docs", "source_type": "custom_index"}))
		sol := mustID(t, s.Do(t, "POST", "/solutions", s.Key, map[string]any{"name": "Cleanup"}))
		r := s.Do(t, "POST", "/solutions/"+sol+"/ai-assistant/source", s.Key, map[string]any{"user_input": `Delete the source "Old docs"`})
		wantStatus(t, r, http.StatusOK)
		var plan struct {
			planResponse
			RequiresDeleteConfirmation bool `json:"requires_delete_confirmation"`
		}
		r.JSON(t, &plan)
		if len(plan.ProposedActions) != 1 || plan.ProposedActions[0].ActionType != "delete_source" || !plan.RequiresDeleteConfirmation {
			t.Fatalf("plan: %s", r.Body)
		}
		accept := "/solutions/" + sol + "/ai-assistant/" + plan.ConversationID + "/accept"
		wantStatus(t, s.Do(t, "POST", accept, s.Key, map[string]any{}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "GET", "/sources/"+src, s.Key, nil), http.StatusOK)
		wantStatus(t, s.Do(t, "POST", accept, s.Key, map[string]any{"confirm_deletions": true}), http.StatusOK)
		wantStatus(t, s.Do(t, "GET", "/sources/"+src, s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/ai-assistant/"+plan.ConversationID+"/decline", s.Key, nil), http.StatusConflict)

		r = s.Do(t, "POST", "/solutions/"+sol+"/ai-assistant/generate", s.Key, map[string]any{"user_input": "Answer questions from the manuals I upload"})
		r.JSON(t, &plan.planResponse)
		wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/ai-assistant/"+plan.ConversationID+"/decline", s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/ai-assistant/"+plan.ConversationID+"/accept", s.Key, map[string]any{}), http.StatusConflict)
		for _, p := range []string{"/agents", "/knowledge_bases"} {
			r := s.Do(t, "GET", p, s.Key, nil, "Service-Version: 2026-07-27")
			if !strings.Contains(string(r.Body), `"total":0`) {
				t.Errorf("declining created something at %s: %s", p, r.Body)
			}
		}
		r = s.Do(t, "GET", "/solutions/"+sol+"/conversations", s.Key, nil)
		var turns []struct {
			Accepted     *bool          `json:"accepted"`
			ActionsTaken map[string]any `json:"actions_taken"`
		}
		r.JSON(t, &turns)
		if len(turns) != 2 || turns[0].Accepted == nil || !*turns[0].Accepted || turns[1].Accepted == nil || *turns[1].Accepted ||
			turns[0].ActionsTaken["executed_actions"] == nil {
			t.Fatalf("history: %s", r.Body)
		}
		// A standalone plan is not reachable through a solution, nor the reverse.
		wantStatus(t, s.Do(t, "POST", "/ai-assistant/"+plan.ConversationID+"/decline", s.Key, nil), http.StatusNotFound)
	})
}

// The agent assistant offline: generate-steps gives a workflow that saves;
// step-config proposes a configuration; the history pages oldest first;
// marking records the answer only.
func TestAgentAssistantOffline(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := mustID(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Helper", "trigger_type": "schedule"}))
		r := s.Do(t, "POST", "/agents/"+agent+"/ai-assistant/generate-steps", s.Key, map[string]any{
			"user_input": "Every Monday write a report and e-mail it to boss@example.test"})
		wantStatus(t, r, http.StatusOK)
		var gen struct {
			ConversationID string           `json:"conversation_id"`
			Success        bool             `json:"success"`
			Steps          []map[string]any `json:"steps"`
		}
		r.JSON(t, &gen)
		if !gen.Success || !strings.Contains(fmt.Sprint(gen.Steps), "send_email") {
			t.Fatalf("generate: %s", r.Body)
		}
		var cur struct {
			ChangeID string `json:"change_id"`
		}
		s.Do(t, "GET", "/agents/"+agent+"/definition", s.Key, nil).JSON(t, &cur)
		wantStatus(t, s.Do(t, "PUT", "/agents/"+agent+"/definition", s.Key, map[string]any{"expected_change_id": cur.ChangeID,
			"definition": map[string]any{"name": "Helper", "child_steps": gen.Steps}}), http.StatusOK)

		for i := 0; i < 3; i++ {
			r = s.Do(t, "POST", "/agents/"+agent+"/ai-assistant/step-config", s.Key, map[string]any{"step_type": "send_email", "step_id": "send",
				"user_input": fmt.Sprintf(`Send it to team%d@example.test with the subject "Week %d"`, i, i)})
			wantStatus(t, r, http.StatusOK)
		}
		var cfg struct {
			ConversationID  string         `json:"conversation_id"`
			ResultingConfig map[string]any `json:"resulting_config"`
			Success         bool           `json:"success"`
		}
		r.JSON(t, &cfg)
		if !cfg.Success || cfg.ResultingConfig["to"] != "team2@example.test" || cfg.ResultingConfig["subject"] != "Week 2" {
			t.Fatalf("step-config: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/ai-assistant/conversations?step_type=send_email&step_id=send&limit=2", s.Key, nil)
		var hist struct {
			Total int `json:"total"`
			Turns []struct {
				ConversationID string `json:"conversation_id"`
				UserInput      string `json:"user_input"`
				Accepted       *bool  `json:"accepted"`
			} `json:"turns"`
		}
		r.JSON(t, &hist)
		if hist.Total != 3 || len(hist.Turns) != 2 || !strings.Contains(hist.Turns[0].UserInput, "team1") || !strings.Contains(hist.Turns[1].UserInput, "team2") {
			t.Fatalf("history: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/ai-assistant/conversations?step_type=send_email&offset=2", s.Key, nil)
		r.JSON(t, &hist)
		if len(hist.Turns) != 1 || !strings.Contains(hist.Turns[0].UserInput, "team0") {
			t.Fatalf("offset: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "PATCH", "/agents/"+agent+"/ai-assistant/"+cfg.ConversationID, s.Key, map[string]any{"accepted": false}), http.StatusOK)
		r = s.Do(t, "GET", "/agents/"+agent+"/ai-assistant/conversations?step_type=send_email&limit=1", s.Key, nil)
		r.JSON(t, &hist)
		if hist.Turns[0].Accepted == nil || *hist.Turns[0].Accepted {
			t.Fatalf("mark: %s", r.Body)
		}
		// Marking changed nothing in the agent.
		r = s.Do(t, "GET", "/agents/"+agent+"/definition", s.Key, nil)
		if strings.Contains(string(r.Body), "team2@example.test") {
			t.Errorf("marking applied the suggestion: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "PATCH", "/agents/"+agent+"/ai-assistant/00000000-0000-7000-8000-000000000000", s.Key, map[string]any{"accepted": true}), http.StatusNotFound)
	})
}

// Account search: UUIDs match exactly; keywords rank name-prefix, then
// name-substring, then description; the type filter and limit apply.
func TestAccountSearch(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		mustID(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Weekly harbour digest"}))
		prefix := mustID(t, s.Do(t, "POST", "/solutions", s.Key, map[string]any{"name": "Harbour"}))
		mustID(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Ferry times", "description": "Answers about the harbour ferries"}))
		src := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Harbour 100% news_feed", "source_type": "custom_index"}))
		bank := mustID(t, s.Do(t, "POST", "/memory_banks", s.Key, map[string]any{"name": "Skippers", "type": "general", "description": "What each harbour skipper asked"}))
		r := s.Do(t, "GET", "/search?q=HARBOUR", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var res struct {
			Results []struct {
				EntityType string `json:"entity_type"`
				ID         string `json:"id"`
				Name       string `json:"name"`
			} `json:"results"`
		}
		r.JSON(t, &res)
		var names []string
		for _, x := range res.Results {
			names = append(names, x.Name)
		}
		if got := strings.Join(names, "|"); got != "Harbour|Harbour 100% news_feed|Weekly harbour digest|Ferry times|Skippers" {
			t.Fatalf("ranking: %s", got)
		}
		if res.Results[0].ID != prefix || res.Results[0].EntityType != "solution" {
			t.Errorf("first: %+v", res.Results[0])
		}
		r = s.Do(t, "GET", "/search?q=harbour&entity_type=agent&limit=1", s.Key, nil)
		r.JSON(t, &res)
		if len(res.Results) != 1 || res.Results[0].Name != "Weekly harbour digest" {
			t.Fatalf("filter: %s", r.Body)
		}
		r = s.Do(t, "GET", "/search?q=skip&entity_type=memory_bank", s.Key, nil)
		r.JSON(t, &res)
		if len(res.Results) != 1 || res.Results[0].ID != bank {
			t.Fatalf("memory bank: %s", r.Body)
		}
		// LIKE wildcards in the query are literal.
		r = s.Do(t, "GET", "/search?q=100%25+news_", s.Key, nil)
		r.JSON(t, &res)
		if len(res.Results) != 1 || res.Results[0].ID != src {
			t.Fatalf("wildcards: %s", r.Body)
		}
		r = s.Do(t, "GET", "/search?q="+strings.ToUpper(src), s.Key, nil)
		r.JSON(t, &res)
		if len(res.Results) != 1 || res.Results[0].EntityType != "source_connection" {
			t.Fatalf("by id: %s", r.Body)
		}
	})
}

// Feedback: stored, and negative feedback with a concerning comment flagged.
func TestAssistantFeedback(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for _, c := range []struct {
			rating, comment string
			flagged         bool
		}{
			{"thumbs_up", "It deleted exactly what I asked", false},
			{"thumbs_down", "The plan was too long", false},
			{"thumbs_down", "It showed another customer's private data", true},
			{"thumbs_down", "", false},
		} {
			r := s.Do(t, "POST", "/ai-assistant/feedback", s.Key, map[string]any{"feature": "solution", "rating": c.rating, "comment": c.comment})
			wantStatus(t, r, http.StatusOK)
			var f struct {
				FeedbackID string  `json:"feedback_id"`
				Flagged    bool    `json:"flagged"`
				FlagReason *string `json:"flag_reason"`
			}
			r.JSON(t, &f)
			if f.FeedbackID == "" || f.Flagged != c.flagged || (f.FlagReason != nil) != c.flagged {
				t.Errorf("%q: %s", c.comment, r.Body)
			}
		}
		flagged, err := s.S.Solutions.FlaggedFeedback(t.Context(), 10)
		if err != nil || len(flagged) != 1 || !strings.Contains(*flagged[0].FlagReason, "privacy") {
			t.Fatalf("flagged: %+v %v", flagged, err)
		}
	})
}
