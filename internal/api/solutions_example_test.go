package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// feedServer serves an RSS feed on loopback.
func feedServer(t *testing.T) *httptest.Server {
	t.Helper()
	feed := `<?xml version="1.0"?><rss version="2.0"><channel><title>Harbour news</title><link>http://harbour.test/</link>
<description>News from the harbour</description>
<item><title>New ferry timetable</title><link>http://harbour.test/ferry</link><guid>ferry-1</guid>
<description>The ferry to the islands now leaves every hour from the north pier, starting at six in the morning.</description></item>
<item><title>Lighthouse restored</title><link>http://harbour.test/lighthouse</link><guid>light-1</guid>
<description>The old lighthouse was restored by volunteers and opens to visitors on Saturdays.</description></item>
</channel></rss>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, feed)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type planAction struct {
	ActionType string         `json:"action_type"`
	Params     map[string]any `json:"params"`
	Preview    map[string]any `json:"preview"`
}

type planResponse struct {
	ConversationID  string       `json:"conversation_id"`
	Note            string       `json:"note"`
	Success         bool         `json:"success"`
	ProposedActions []planAction `json:"proposed_actions"`
}

type acceptResponse struct {
	ConversationID  string  `json:"conversation_id"`
	SolutionID      *string `json:"solution_id"`
	Success         bool    `json:"success"`
	Error           *string `json:"error"`
	ExecutedActions []struct {
		ActionType   string  `json:"action_type"`
		Success      bool    `json:"success"`
		Error        *string `json:"error"`
		ResourceID   *string `json:"resource_id"`
		ResourceType *string `json:"resource_type"`
	} `json:"executed_actions"`
}

// The worked example of docs/solutions.md: one sentence becomes an RSS
// source, a knowledge base over it and a weekly agent that retrieves from
// it and e-mails a summary; accepting creates them in a new solution, the
// feed is indexed and the agent runs to completion — all offline.
func TestWorkedExampleRSSSummary(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		feed := feedServer(t)
		// "me" is the caller: the planner e-mails the caller's address.
		if _, err := s.DB.W.ExecContext(context.Background(), `UPDATE users SET email = $1 WHERE id = $2`, "owner@example.test", s.UserID); err != nil {
			t.Fatal(err)
		}
		r := s.Do(t, "POST", "/ai-assistant/solution", s.Key, map[string]any{
			"user_input": "Watch this RSS feed " + feed.URL + "/feed.xml and e-mail me a weekly summary"})
		wantStatus(t, r, http.StatusOK)
		var plan planResponse
		r.JSON(t, &plan)
		if !plan.Success || len(plan.ProposedActions) != 3 {
			t.Fatalf("plan: %s", r.Body)
		}
		want := []string{"create_source", "create_knowledge_base", "create_agent"}
		for i, a := range plan.ProposedActions {
			if a.ActionType != want[i] {
				t.Fatalf("action %d is %s, want %s", i+1, a.ActionType, want[i])
			}
		}
		if body := plan.ProposedActions[0].Params["body"].(map[string]any); body["source_type"] != "rss" {
			t.Errorf("source: %v", body)
		}
		agentBody := plan.ProposedActions[2].Params["body"].(map[string]any)
		if agentBody["trigger_type"] != "schedule" {
			t.Errorf("agent trigger: %v", agentBody["trigger_type"])
		}
		steps := fmt.Sprint(plan.ProposedActions[2].Preview["steps"])
		for _, st := range []string{"retrieval", "prompt_call", "send_email"} {
			if !strings.Contains(steps, st) {
				t.Errorf("agent steps lack %s: %s", st, steps)
			}
		}

		r = s.Do(t, "POST", "/ai-assistant/"+plan.ConversationID+"/accept", s.Key, map[string]any{"solution_name": "Harbour digest"})
		wantStatus(t, r, http.StatusOK)
		var acc acceptResponse
		r.JSON(t, &acc)
		if !acc.Success || len(acc.ExecutedActions) != 3 || acc.SolutionID == nil {
			t.Fatalf("accept: %s", r.Body)
		}
		sourceID, kbID, agentID := *acc.ExecutedActions[0].ResourceID, *acc.ExecutedActions[1].ResourceID, *acc.ExecutedActions[2].ResourceID

		// The knowledge base is over the source the plan created first.
		r = s.Do(t, "GET", "/knowledge_bases/"+kbID, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), sourceID) {
			t.Errorf("knowledge base sources: %s", r.Body)
		}
		// The solution holds all three.
		r = s.Do(t, "GET", "/solutions/"+*acc.SolutionID, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		for _, id := range []string{sourceID, kbID, agentID} {
			if !strings.Contains(string(r.Body), id) {
				t.Errorf("solution lacks %s: %s", id, r.Body)
			}
		}
		// The agent fires weekly.
		r = s.Do(t, "GET", "/agents/"+agentID+"/schedules", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"cron_expression":"0 8 * * 1"`) {
			t.Errorf("schedules: %s", r.Body)
		}
		// Accepting twice executes nothing.
		r = s.Do(t, "POST", "/ai-assistant/"+plan.ConversationID+"/accept", s.Key, map[string]any{})
		wantStatus(t, r, http.StatusConflict)

		// The feed is fetched and indexed, and the agent runs on it.
		waitSourceContents(t, s, s.Key, sourceID, 2)
		r = s.Do(t, "POST", "/agents/"+agentID+"/runs", s.Key, map[string]any{"input": "this week"})
		wantStatus(t, r, http.StatusOK)
		var start struct {
			RunID string `json:"run_id"`
		}
		r.JSON(t, &start)
		done := waitRun(t, s, s.Key, start.RunID)
		if done.Status != "completed" {
			t.Fatalf("run: %+v", done)
		}
	})
}

// waitSourceContents waits until a source has n indexed contents.
func waitSourceContents(t *testing.T, s *testserver.Server, key, sourceID string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := s.Do(t, "GET", "/sources/"+sourceID, key, nil)
		if strings.Count(string(r.Body), `"status":"indexed"`) >= n || strings.Contains(string(r.Body), fmt.Sprintf(`"content_count":%d`, n)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("source contents not indexed: %.1000s", r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
