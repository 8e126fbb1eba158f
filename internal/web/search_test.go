package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

var docAtSection = regexp.MustCompile(`href="/console/docs/([a-z0-9-]+)#([a-z0-9_-]+)"`)

// TestSearchPage: the header's search finds the account's resources of
// every type (linked to their console pages) and the documentation pages
// (linked to the console's reading of them), never another account's
// resources; bad queries are a 422 next to the form.
func TestSearchPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Harbour digest", showDef, "dynamic_input")
		sol, err := api.CreateSolution(ctx, "Harbour ops", "tides and ships")
		if err != nil {
			t.Fatal(err)
		}
		run, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "x"})
		if err != nil {
			t.Fatal(err)
		}
		other := srv.NewTenant(t, "other")
		theirs := srv.StoreAgent(t, other.AccountID, "Harbour secret", showDef, "dynamic_input")

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		p := b.get("/console/search?q=harbour")
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, `id="top-search" type="search" name="q" placeholder="Search" value="harbour"`,
			`href="/console/agents/`+agent+`">Harbour digest</a>`, `href="/console/solutions/`+sol.ID+`">Harbour ops</a>`, "tides and ships", `id="docs-results"`)
		if strings.Contains(p.Body, "Harbour secret") || strings.Contains(p.Body, theirs) {
			t.Error("another account's agent is found")
		}
		p = b.get("/console/search?q=harbour&type=agent")
		p.mustContain(t, "Harbour digest")
		if strings.Contains(p.Body, "Harbour ops") {
			t.Error("the type filter lets a solution through")
		}
		// A run is found by its id.
		b.get("/console/search?q="+run.RunID).mustContain(t, `href="/console/runs/`+run.RunID+`"`)
		// Nothing of another account, even by id.
		if p := b.get("/console/search?q=" + theirs); strings.Contains(p.Body, "/console/agents/"+theirs) {
			t.Error("another account's agent is found by id")
		}

		// The documentation: keyword and semantic modes, each page linked
		// to its reading page (at the section, by meaning).
		p = b.get("/console/search?q=schedules")
		p.mustContain(t, `href="/console/docs/schedules"`)
		p = b.get("/console/search?" + url.Values{"q": {"accept a plan the assistant proposed"}, "mode": {"semantic"}}.Encode())
		m := docAtSection.FindStringSubmatch(p.Body)
		if m == nil {
			t.Fatalf("no documentation result at a section:\n%s", p.Body)
		}
		// The section the search names is an anchor of the reading page.
		b.get("/console/docs/"+m[1]).mustContain(t, `id="`+m[2]+`"`)
		docs := b.get("/console/docs/solutions")
		wantStatus(t, docs, http.StatusOK)
		docs.mustContain(t, `<h1 id="solutions-and-ai-assistants">Solutions and AI assistants</h1>`, `<h2 id="planning-assistants">`, "<pre><code>agentry assistant plan")
		wantStatus(t, b.get("/console/docs/no-such-page"), http.StatusNotFound)
		wantStatus(t, b.get("/console/docs/..%2fgo.mod"), http.StatusNotFound)
		wantStatus(t, b.get("/console/docs/SOLUTIONS"), http.StatusNotFound)

		// No query: the form and a hint; a query the API refuses: a 422.
		p = b.get("/console/search")
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Search finds agents")
		p = b.get("/console/search?q=" + strings.Repeat("h", 201))
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`)

		// A member, the least role, searches too; without a session the
		// search asks to sign in.
		mb := newBrowser(t, srv)
		mb.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		mb.get("/console/search?q=harbour").mustContain(t, "Harbour digest")
		if p := newBrowser(t, srv).get("/console/search?q=harbour"); !strings.HasSuffix(p.URL, "/signin") {
			t.Errorf("anonymous search: %s", p.URL)
		}
		// The other account finds its own, not ours.
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		p = ob.get("/console/search?q=harbour")
		p.mustContain(t, "Harbour secret")
		if strings.Contains(p.Body, "Harbour digest") {
			t.Error("our agent is found by another account")
		}
	})
}
