package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// TestBrowserRegressionReport opens a running regression's report in
// chromium, with the CSP in force: while its replays hang the block polls;
// once they are released it turns to completed by itself (no reload),
// shows the changed output side by side, and stops polling.
func TestBrowserRegressionReport(t *testing.T) {
	exe := chromium(t)
	srv := testserver.Start(t, store.SQLite, func(c *server.Config) { c.AllowPrivateWebhooks = true })
	hook, release := regressionHook(t)
	api := apiClient(t, srv, srv.Key)
	agent, _ := recordedAgent(t, srv, api, hook.URL, "/hang", "q0", "q1")
	reg, err := api.StartRegression(context.Background(), agent, client.RegressionRequest{LastRuns: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
	)
	do(t, b, "open the running report",
		chromedp.Navigate(srv.URL+"/console/agents/"+agent+"/regressions/"+reg.RegressionID),
		chromedp.WaitVisible(css(`#regression-live[hx-trigger]`)),
	)
	run(t, b, chromedp.Evaluate[bool](`window.__notReloaded = true`))
	release()
	do(t, b, "it finishes by itself", chromedp.WaitVisible(css(`#regression-live:not([hx-trigger]) .regression-changed`)))
	stayed := run(t, b, chromedp.Evaluate[bool](`window.__notReloaded === true`))
	status := run(t, b, chromedp.Text(css(`#regression-status .tag`)))
	outputs := run(t, b, chromedp.Text(css(`.regression-changed .grid2`)))
	if !stayed || status != "completed" || !strings.Contains(outputs, "answer-q") || !strings.Contains(outputs, "late-q") {
		t.Fatalf("report: not reloaded %v, status %q, outputs %q", stayed, status, outputs)
	}
}
