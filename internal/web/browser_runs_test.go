package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// liveDef waits for a review, then asks the (built-in, offline) model and
// streams its answer: a run a test can hold, then watch fill in.
const liveDef = `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Go ahead with {{input}}?",
	"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: Rivers flow to the sea. Rain fills the rivers again. Clouds carry the rain inland. {{input}}",
	"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}]}`

// TestBrowserRuns drives the runs area in chromium, with the CSP in force:
// a run page fills in live as the run moves (without a reload), with the
// streamed tokens; a long run is cancelled from its page; a review is
// approved with a comment; the overview and the list render.
func TestBrowserRuns(t *testing.T) {
	exe := chromium(t)
	srv := testserver.Start(t, store.SQLite)
	ctx := context.Background()
	api := apiClient(t, srv, srv.Key)
	agent := srv.StoreAgent(t, srv.AccountID, "Rivers", liveDef, "dynamic_input")
	park := func(input string) string {
		r, err := api.StartRun(ctx, agent, client.AgentRunRequest{Input: input, Priority: true})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, api, r.RunID, client.RunWaitingHuman)
		return r.RunID
	}
	shots := screenshotDir(t)
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
	)

	// Live: the page is open while the run waits; the review is approved
	// elsewhere; the timeline and the streamed output fill in, no reload.
	live := park("the delta")
	do(t, b, "open the waiting run",
		chromedp.Navigate(srv.URL+"/console/runs/"+live),
		chromedp.WaitVisible(css(`#step-review-1`)),
		chromedp.WaitVisible(css(`#run-stream`)),
	)
	// The stream is connected once htmx has opened its EventSource.
	run(t, b, chromedp.Poll[bool](`(() => { const el = document.querySelector("#run-stream"); window.__notReloaded = true;
		return !!(el && el["htmx-internal-data"] && el["htmx-internal-data"].sseEventSource && el["htmx-internal-data"].sseEventSource.readyState === 1); })()`))
	if _, err := api.DecideReview(ctx, live, client.ReviewDecisionRequest{Decision: client.DecisionApprove}); err != nil {
		t.Fatal(err)
	}
	do(t, b, "the timeline fills in",
		chromedp.WaitVisible(css(`#step-stream-1`)),
		chromedp.WaitVisible(css(`#step-ask-1 .tag.model`)),
	)
	streamed := run(t, b, chromedp.Poll[string](`document.querySelector("#live-output").textContent || false`))
	stayed := run(t, b, chromedp.Evaluate[bool](`window.__notReloaded === true`))
	status := run(t, b, chromedp.Text(css(`.run-head h1 .tag`)))
	if !stayed || len(strings.TrimSpace(streamed)) == 0 || status != client.RunCompleted {
		t.Fatalf("live page: not reloaded %v, streamed %q, status %q", stayed, streamed, status)
	}
	final, err := api.GetRun(ctx, live, false)
	if err != nil || !strings.HasPrefix(strings.TrimSpace(final.OutputText()), strings.TrimSpace(streamed)[:min(20, len(strings.TrimSpace(streamed)))]) {
		t.Fatalf("streamed %q, output %q (%v)", streamed, final.OutputText(), err)
	}
	do(t, b, "screenshot", shoot(shots, "run.png"))

	// Cancel a long run from its page (the confirmation accepted).
	long := park("the long one")
	do(t, b, "cancel",
		chromedp.Navigate(srv.URL+"/console/runs/"+long),
		chromedp.WaitVisible(css(`form[action$="/cancel"] button`)),
	)
	run(t, b, chromedp.Evaluate[bool](`(window.confirm = () => true, true)`))
	do(t, b, "cancelled",
		chromedp.Click(css(`form[action$="/cancel"] button`)),
		chromedp.WaitVisible(css(`.run-head .error-text`)),
	)
	if msg := run(t, b, chromedp.Text(css(`.run-head .error-text`))); msg != "Run cancelled" {
		t.Fatalf("after cancel: %q", msg)
	}
	if r := waitStatus(t, api, long, client.RunFailed); r.LastError() != "Run cancelled" {
		t.Fatalf("cancelled run: %+v", r)
	}

	// Approve a review with a comment.
	reviewed := park("the review")
	do(t, b, "approve",
		chromedp.Navigate(srv.URL+"/console/reviews"),
		chromedp.WaitVisible(css(`#review-`+reviewed+`-review textarea`)),
		chromedp.SendKeys(css(`#review-`+reviewed+`-review textarea`), "fine by me"),
		shoot(shots, "reviews.png"),
		chromedp.Click(css(`#review-`+reviewed+`-review button[value=approve]`)),
		chromedp.WaitVisible(css(`p.flash`)),
	)
	done := waitStatus(t, api, reviewed, client.RunCompleted)
	revs, err := api.ListPendingReviews(ctx, client.ReviewListOptions{RunID: reviewed})
	if err != nil || len(revs.Items) != 0 || done.Status != client.RunCompleted {
		t.Fatalf("after approval: %+v %v", revs, err)
	}

	do(t, b, "overview and list",
		chromedp.Navigate(srv.URL+"/console/"),
		chromedp.WaitVisible(css(`svg.chart rect`)),
		shoot(shots, "overview.png"),
		chromedp.Navigate(srv.URL+"/console/runs"),
		chromedp.WaitVisible(css(`#runs-table`)),
		shoot(shots, "runs.png"),
	)
}
