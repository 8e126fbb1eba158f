package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// TestBrowserAcceptPlan drives the assistant in chromium, with the CSP in
// force: describe what you want in one sentence, see the plan, accept it,
// and land on the solution that holds what was created; then find it with
// the header's search.
func TestBrowserAcceptPlan(t *testing.T) {
	exe := chromium(t)
	srv := testserver.Start(t, store.SQLite)
	api := apiClient(t, srv, srv.Key)
	shots := screenshotDir(t)
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
	)
	do(t, b, "describe what is wanted",
		chromedp.Navigate(srv.URL+"/console/solutions"),
		chromedp.WaitVisible(css(`#user_input`)),
		chromedp.SendKeys(css(`#user_input`), "Answer customer questions from the product manuals I upload"),
		chromedp.Click(css(`#planner button[type=submit]`)),
		chromedp.WaitVisible(css(`#accept-plan`)),
	)
	actions := run(t, b, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".plan-action .tag")).map(e => e.textContent)`))
	if strings.Join(actions, ",") != "create_source,create_knowledge_base,create_agent" {
		t.Fatalf("the plan shows %v", actions)
	}
	do(t, b, "screenshot the plan", shoot(shots, "solutions-plan.png"))
	do(t, b, "accept it, in a new solution",
		chromedp.SetValue(css(`#solution_name`), "Product manuals"),
		chromedp.Click(css(`#accept-plan button[type=submit]`)),
		chromedp.WaitVisible(css(`#agents`)),
	)
	title := run(t, b, chromedp.Text(css(`main h1`)))
	flash := run(t, b, chromedp.Text(css(`.flash`)))
	agentLink := run(t, b, chromedp.Evaluate[string](`document.querySelector("#agents li a").getAttribute("href")`))
	if title != "Product manuals" || !strings.Contains(flash, "The plan ran") || !strings.HasPrefix(agentLink, "/console/agents/") {
		t.Fatalf("landed on %q, flash %q, agent link %q", title, flash, agentLink)
	}
	// What the page shows is what the API has.
	agent, err := api.GetAgent(context.Background(), strings.TrimPrefix(agentLink, "/console/agents/"))
	if err != nil {
		t.Fatal(err)
	}
	do(t, b, "screenshot the solution", shoot(shots, "solutions-solution.png"))
	do(t, b, "open the created agent",
		chromedp.Click(css(`#agents li a`)),
		chromedp.WaitVisible(css(`main h1`)),
	)
	if h := run(t, b, chromedp.Text(css(`main h1`))); !strings.Contains(h, agent.Name) {
		t.Fatalf("the agent's page says %q, the API %q", h, agent.Name)
	}

	// The header's search finds the solution and the documentation.
	do(t, b, "search",
		chromedp.SendKeys(css(`#top-search`), "knowledge"),
		chromedp.Submit(css(`#top-search`)),
		chromedp.WaitVisible(css(`#account-results`)),
	)
	found := run(t, b, chromedp.Text(css(`#account-results`)))
	doc := run(t, b, chromedp.Evaluate[string](`(document.querySelector("#docs-results a") || {}).href || ""`))
	if !strings.Contains(found, "Knowledge: Uploaded documents") || !strings.Contains(doc, "/console/docs/") {
		t.Fatalf("search shows %q and the documentation link %q", found, doc)
	}
	do(t, b, "screenshot the search", shoot(shots, "search.png"))
}
