package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// planRequests are plain-language requests of the kind users write. Each
// must yield a plan that validates and, accepted, creates resources whose
// agent runs to completion — with the built-in planner and offline model.
// FEED, FEED2, SITE and HOOK are loopback servers of the test.
var planRequests = []struct {
	input string
	// wantTypes are action types the plan must hold, in order.
	wantTypes []string
	// wantSteps are step types the agent's workflow must hold.
	wantSteps []string
	trigger   string
}{
	{"Watch this RSS feed FEED and e-mail me a weekly summary", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval", "send_email"}, "schedule"},
	{"Every morning at 7am, send a digest of FEED to news@example.test", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval", "send_email"}, "schedule"},
	{"Answer customer questions from our product manuals", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Build a support chatbot that answers from the help centre at SITE", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Summarize the articles I upload", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"prompt_call"}, ""},
	{"Extract the people, dates and organisations from contracts I upload", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"extract_content"}, "new_content"},
	{"Tell me when SITE/pricing changes", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"load_content", "gate"}, "new_content"},
	{"Notify ops@example.test when new items appear in FEED", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"send_email"}, "new_content"},
	{"Post new posts from FEED to the webhook HOOK", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"webhook_call"}, "new_content"},
	{"Send every message I give you as JSON to the webhook HOOK", []string{"create_agent"}, []string{"webhook_call"}, "dynamic_input"},
	{"A daily report on our HR policies, e-mailed to hr@example.test", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"send_email"}, "schedule"},
	{"Answer questions about the company handbook", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"I need a Q&A assistant", []string{"create_agent"}, []string{"prompt_call"}, ""},
	{"Monthly summary of FEED", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "schedule"},
	{"Every Friday at 5pm summarise SITE for me", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "schedule"},
	{"Create a knowledge base from FEED and an agent that answers questions about it", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Summarize this text in three bullet points", []string{"create_agent"}, []string{"prompt_call"}, "dynamic_input"},
	{"Translate questions into French", []string{"create_agent"}, []string{"prompt_call"}, "dynamic_input"},
	{"Keep an eye on SITE daily and alert me about updates", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"load_content"}, "new_content"},
	{"Weekly newsletter from FEED and FEED2 to team@example.test", []string{"create_source", "create_source", "create_knowledge_base", "create_agent"}, []string{"send_email"}, "schedule"},
	{"Index the docs at SITE/docs so I can search them", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Extract invoice numbers and totals as JSON", []string{"create_agent"}, []string{"extract_content"}, "dynamic_input"},
	{"A daily briefing at 6:30 on FEED", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "schedule"},
	{"Summarise new documents as they are uploaded", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"load_content"}, "new_content"},
	{"Help me draft replies to customer questions using our FAQ documents", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Every hour, check FEED and report the latest headlines", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "schedule"},
	{"Find answers in the knowledge from the site SITE and the feed FEED", []string{"create_source", "create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Give me a JSON summary of each new item in FEED", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"extract_content"}, "new_content"},
	{"Write a short poem about the input", []string{"create_agent"}, []string{"prompt_call"}, "dynamic_input"},
	{"Recap the week's posts from FEED every Sunday", []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "schedule"},
	{`Answer HR questions from the policies I upload, in a knowledge base called "HR policies"`, []string{"create_source", "create_knowledge_base", "create_agent"}, []string{"retrieval"}, "dynamic_input"},
	{"Turn bug reports into structured fields for our tracker", []string{"create_agent"}, []string{"extract_content"}, "dynamic_input"},
}

// siteServer serves a small web site, a second feed and a webhook sink.
func siteServer(t *testing.T, hooks *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/hook":
			io.Copy(io.Discard, r.Body)
			hooks.Add(1)
			w.Write([]byte(`{"ok":true}`))
		case strings.HasSuffix(r.URL.Path, ".xml"):
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Second</title><link>http://second.test/</link><description>d</description>
<item><title>Market day moved</title><link>http://second.test/market</link><guid>m-1</guid><description>The market moves to Thursday this month because of the fair.</description></item>
</channel></rss>`)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><title>Help centre %s</title></head><body><h1>Help centre</h1>
<p>Our product ships worldwide within five working days. Returns are free for thirty days after delivery.</p>
<p>The pricing starts at ten euros a month for the basic plan and includes e-mail support.</p></body></html>`, r.URL.Path)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Thirty-odd requests: each plan validates, accepting creates everything,
// and the agent runs to completion offline.
func TestPlanRequestsRunOffline(t *testing.T) {
	t.Parallel()
	if len(planRequests) < 30 {
		t.Fatalf("the table holds %d requests; keep at least 30", len(planRequests))
	}
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		// New feeds and sites are polled at the next tick: a short one,
		// so that new_content agents find their content at once.
		s := testserver.Start(t, d, func(c *server.Config) {
			c.AllowPrivateWebhooks, c.SourcePollInterval = true, 100*time.Millisecond
		})
		if _, err := s.DB.W.ExecContext(context.Background(), `UPDATE users SET email = $1 WHERE id = $2`, "owner@example.test", s.UserID); err != nil {
			t.Fatal(err)
		}
		feed := feedServer(t)
		var hooks atomic.Int64
		site := siteServer(t, &hooks)
		for i, req := range planRequests {
			input := strings.NewReplacer("FEED2", site.URL+"/second/feed.xml", "FEED", feed.URL+"/feed.xml", "SITE", site.URL+"/help",
				"HOOK", site.URL+"/hook").Replace(req.input)
			t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
				t.Logf("request: %s", input)
				runPlanRequest(t, s, input, req.wantTypes, req.wantSteps, req.trigger)
			})
		}
	})
}

func runPlanRequest(t *testing.T, s *testserver.Server, input string, wantTypes, wantSteps []string, trigger string) {
	t.Helper()
	r := s.Do(t, "POST", "/ai-assistant/solution", s.Key, map[string]any{"user_input": input})
	wantStatus(t, r, http.StatusOK)
	var plan planResponse
	r.JSON(t, &plan)
	if !plan.Success {
		t.Fatalf("no valid plan: %s", r.Body)
	}
	var got []string
	var agentBody map[string]any
	var agentSteps string
	for _, a := range plan.ProposedActions {
		got = append(got, a.ActionType)
		if a.ActionType == "create_agent" {
			agentBody = a.Params["body"].(map[string]any)
			agentSteps = fmt.Sprint(a.Preview["steps"])
		}
	}
	if strings.Join(got, ",") != strings.Join(wantTypes, ",") {
		t.Fatalf("actions %v, want %v; note: %s", got, wantTypes, plan.Note)
	}
	for _, st := range wantSteps {
		if !strings.Contains(agentSteps, "step_type:"+st) {
			t.Errorf("the agent lacks a %s step: %s", st, agentSteps)
		}
	}
	if trigger != "" && agentBody["trigger_type"] != trigger {
		t.Errorf("trigger %v, want %s", agentBody["trigger_type"], trigger)
	}
	r = s.Do(t, "POST", "/ai-assistant/"+plan.ConversationID+"/accept", s.Key, map[string]any{"solution_name": clipName(input)})
	wantStatus(t, r, http.StatusOK)
	var acc acceptResponse
	r.JSON(t, &acc)
	if !acc.Success {
		t.Fatalf("accept: %s", r.Body)
	}
	var agentID, sourceID string
	for _, e := range acc.ExecutedActions {
		if !e.Success || e.ResourceID == nil {
			t.Fatalf("action %s: %v", e.ActionType, e.Error)
		}
		switch e.ActionType {
		case "create_agent":
			agentID = *e.ResourceID
		case "create_source":
			if sourceID == "" {
				sourceID = *e.ResourceID
			}
		}
	}
	start := map[string]any{"input": "What is new this week?"}
	if agentBody["trigger_type"] == "new_content" {
		// A content of the source, as the trigger would pass it.
		start = map[string]any{"input": "", "metadata": map[string]any{"source_connection_content_version_id": contentOf(t, s, sourceID)}}
	}
	r = s.Do(t, "POST", "/agents/"+agentID+"/runs", s.Key, start)
	wantStatus(t, r, http.StatusOK)
	var run struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &run)
	if done := waitRun(t, s, s.Key, run.RunID); done.Status != "completed" {
		t.Fatalf("run %s: %+v", done.Status, done)
	}
}

// contentOf returns an indexed content of a source, uploading one to an
// upload source first.
func contentOf(t *testing.T, s *testserver.Server, sourceID string) string {
	t.Helper()
	r := s.Do(t, "GET", "/sources/"+sourceID, s.Key, nil)
	if strings.Contains(string(r.Body), `"source_type":"custom_index"`) {
		r = s.Do(t, "POST", "/sources/"+sourceID, s.Key, map[string]any{"text": "Invoice 4711 from Harbour Ltd, dated 2026-03-01, total 120 EUR.", "title": "Invoice"})
		wantStatus(t, r, http.StatusOK)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var list struct {
			Data []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"data"`
		}
		var id string
		var cnt int
		err := s.DB.R.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM contents WHERE source_id = $1 AND status = 'indexed'`, sourceID).Scan(&cnt)
		if err == nil && cnt > 0 {
			if err := s.DB.R.QueryRowContext(context.Background(), `SELECT id FROM contents WHERE source_id = $1 AND status = 'indexed' ORDER BY id LIMIT 1`, sourceID).Scan(&id); err == nil {
				return id
			}
		}
		_ = list
		if time.Now().After(deadline) {
			t.Fatalf("no indexed content in source %s", sourceID)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func clipName(s string) string {
	if len(s) > 60 {
		return s[:60]
	}
	return s
}
