package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

var agentLink = regexp.MustCompile(`/console/agents/([0-9a-f-]{36})`)

// createAgent creates an agent through the console's form and returns its id.
func (b *browser) createAgent(name, template string) string {
	b.t.Helper()
	b.get("/console/agents/new")
	p := b.post("/console/agents", url.Values{"name": {name}, "template": {template}})
	m := agentLink.FindStringSubmatch(p.URL)
	if p.Status != http.StatusOK || m == nil {
		b.t.Fatalf("create agent: %d at %s\n%s", p.Status, p.URL, p.Body)
	}
	return m[1]
}

func TestAgentsPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		p := b.get("/console/agents")
		p.mustContain(t, "No agents yet")
		p = b.get("/console/agents/new")
		// The templates come from the API, with whether they run here.
		p.mustContain(t, `value="summarizer"`, `value="simple_qa"`, "Runs here")

		// The API's validation shows next to the form.
		p = b.post("/console/agents", url.Values{"name": {""}, "template": {"summarizer"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("empty name: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, `class="problems"`)

		id := b.createAgent("Weekly digest", "summarizer")
		p = b.get("/console/agents/" + id)
		p.mustContain(t, "Weekly digest", "enabled", "Save settings", "/console/agents/"+id+"/export")
		other := b.createAgent("Support inbox", "blank")

		// Search, state and trigger filters.
		p = b.get("/console/agents?q=digest")
		p.mustContain(t, "Weekly digest")
		if strings.Contains(p.Body, "Support inbox") {
			t.Fatal("search for digest lists Support inbox")
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/console/agents?q=inbox", nil)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "agent-rows")
		p = b.do(req)
		p.mustContain(t, "Support inbox")
		if strings.Contains(p.Body, "<html") {
			t.Fatal("htmx search returned a whole page")
		}

		// Settings, pause and enable go through the API.
		p = b.post("/console/agents/"+id+"/settings", url.Values{"name": {"Daily digest"}, "description": {"every morning"}, "max_retries": {"2"}})
		p.mustContain(t, "Settings saved.", "Daily digest", "every morning")
		p = b.post("/console/agents/"+id+"/settings", url.Values{"name": {"Daily digest"}, "max_retries": {"many"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad max retries: %d", p.Status)
		}
		p = b.post("/console/agents/"+id+"/disable", nil)
		p.mustContain(t, "The agent is paused")
		var a struct{ Disabled bool }
		srv.Do(t, "GET", "/agents/"+id, srv.Key, nil).JSON(t, &a)
		if !a.Disabled {
			t.Fatal("pause did not reach the API")
		}
		p = b.get("/console/agents?state=disabled")
		p.mustContain(t, "Daily digest")
		if strings.Contains(p.Body, "Support inbox") {
			t.Fatal("state=disabled lists an enabled agent")
		}
		b.post("/console/agents/"+id+"/enable", nil).mustContain(t, "The agent is enabled")

		// Export is the API's download.
		resp, err := b.hc.Get(srv.URL + "/console/agents/" + id + "/export")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") || !json.Valid(body) {
			t.Fatalf("export: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Disposition"), body)
		}

		// Running opens the run page.
		b.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		b.get("/console/agents/" + other)
		p = b.post("/console/agents/"+id+"/run", url.Values{"input": {"some text to summarise"}})
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/console/runs/") {
			t.Fatalf("run: %d %s\n%s", p.Status, p.Header.Get("Location"), p.Body)
		}
		runID := strings.TrimPrefix(p.Header.Get("Location"), "/console/runs/")
		if r := srv.Do(t, "GET", "/agents/runs/"+runID, srv.Key, nil); r.Status != http.StatusOK {
			t.Fatalf("the run the console started: %d", r.Status)
		}
	})
}

// Another account's agent is a 404 on every agent page, as in the API.
func TestAgentsPagesAcrossAccounts(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		owner := newBrowser(t, srv)
		owner.signInWithKey(srv.Key)
		id := owner.createAgent("Private agent", "blank")

		other := srv.NewTenant(t, "mallory")
		b := newBrowser(t, srv)
		b.signInWithKey(other.Key)
		if p := b.get("/console/agents"); strings.Contains(p.Body, "Private agent") {
			t.Fatal("another account's agent is listed")
		}
		for _, path := range []string{"/console/agents/" + id, "/console/agents/" + id + "/export", "/console/agents/" + id + "/workflow"} {
			if p := b.get(path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Private agent") {
				t.Errorf("GET %s as another account: %d", path, p.Status)
			}
		}
		b.get("/console/agents")
		for _, path := range []string{"/settings", "/disable", "/run"} {
			if p := b.post("/console/agents/"+id+path, url.Values{"name": {"taken"}}); p.Status != http.StatusNotFound {
				t.Errorf("POST %s as another account: %d", path, p.Status)
			}
		}
		var a struct{ Name string }
		srv.Do(t, "GET", "/agents/"+id, srv.Key, nil).JSON(t, &a)
		if a.Name != "Private agent" {
			t.Fatalf("the agent changed: %q", a.Name)
		}
		// A member (not admin) role is the API's to enforce: the console
		// shows its answer rather than deciding on its own.
	})
}

func TestAgentSchedules(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/agents/new")
		p := b.post("/console/agents", url.Values{"name": {"Morning report"}, "template": {"scheduled_report"}, "trigger_type": {"schedule"}})
		m := agentLink.FindStringSubmatch(p.URL)
		if m == nil {
			t.Fatalf("create: %d %s\n%s", p.Status, p.URL, p.Body)
		}
		id := m[1]
		p.mustContain(t, "No schedule yet", "Add schedule")
		// The API's check of the expression shows on the page.
		p = b.post("/console/agents/"+id+"/schedules", url.Values{"cron_expression": {"every morning"}})
		if p.Status < 400 || p.Status >= 500 || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("bad cron: %d\n%s", p.Status, p.Body)
		}
		p = b.post("/console/agents/"+id+"/schedules", url.Values{"cron_expression": {"0 9 * * 1-5"}, "timezone": {"Europe/Paris"}})
		p.mustContain(t, "Schedule added.", "0 9 * * 1-5", "Europe/Paris")
		var list []struct{ ID string }
		srv.Do(t, "GET", "/agents/"+id+"/schedules", srv.Key, nil).JSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("schedules: %+v", list)
		}
		// Changed in place: a new expression, the schedule switched off.
		sched := "/console/agents/" + id + "/schedules/" + list[0].ID
		p = b.post(sched, url.Values{"cron_expression": {"every hour"}, "timezone": {"Europe/Paris"}, "enabled": {"true"}})
		if p.Status < 400 || p.Status >= 500 || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("bad cron on update: %d\n%s", p.Status, p.Body)
		}
		p = b.post(sched, url.Values{"cron_expression": {"30 7 * * *"}, "timezone": {"UTC"}, "input": {"the morning brief"}})
		p.mustContain(t, "Schedule saved.", "30 7 * * *")
		var got []struct {
			CronExpression string  `json:"cron_expression"`
			Timezone       string  `json:"timezone"`
			Input          *string `json:"input"`
			Enabled        bool    `json:"enabled"`
		}
		srv.Do(t, "GET", "/agents/"+id+"/schedules", srv.Key, nil).JSON(t, &got)
		if len(got) != 1 || got[0].CronExpression != "30 7 * * *" || got[0].Timezone != "UTC" || got[0].Enabled ||
			got[0].Input == nil || *got[0].Input != "the morning brief" {
			t.Fatalf("after update: %+v", got)
		}
		// A schedule the agent does not have is the error page's 404.
		if p = b.post("/console/agents/"+id+"/schedules/00000000-0000-4000-8000-000000000000", url.Values{"cron_expression": {"0 9 * * *"}}); p.Status != 404 {
			t.Fatalf("unknown schedule: %d", p.Status)
		}
		p = b.post(sched+"/delete", nil)
		p.mustContain(t, "Schedule removed.", "No schedule yet")
	})
}

// Without a filter the list is the API's pages of 100, one read each.
func TestAgentsListPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		for i := range 105 {
			srv.StoreAgent(t, srv.AccountID, fmt.Sprintf("Agent %03d", i), showDef, "dynamic_input")
		}
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		rows := func(p page) int { return strings.Count(p.Body, `<td><a href="/console/agents/`) }
		p := b.get("/console/agents")
		p.mustContain(t, "105 in this account", "page 1", `href="/console/agents?page=2">Next`)
		if n := rows(p); n != 100 || strings.Contains(p.Body, ">Previous<") {
			t.Fatalf("first page: %d rows\n%s", n, p.Body)
		}
		p = b.get("/console/agents?page=2")
		p.mustContain(t, "105 in this account", "page 2", `href="/console/agents?page=1">Previous`)
		if n := rows(p); n != 5 || strings.Contains(p.Body, ">Next<") {
			t.Fatalf("second page: %d rows", n)
		}
		// A filter reads every agent: the match on the other page is found.
		p = b.get("/console/agents?q=Agent+104")
		if n := rows(p); n != 1 || !strings.Contains(p.Body, "Agent 104") || strings.Contains(p.Body, "page 1") {
			t.Fatalf("search across pages: %d rows", n)
		}
		// Nonsense page numbers are the first page; past the end is empty.
		if p = b.get("/console/agents?page=zero"); rows(p) != 100 {
			t.Fatal("page=zero is not the first page")
		}
		if p = b.get("/console/agents?page=9"); rows(p) != 0 {
			t.Fatal("a page past the end lists agents")
		}
	})
}
