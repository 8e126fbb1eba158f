package web_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/store"
	"github.com/chromedp/chromedp"
)

// TestBrowserAlerts drives the alerts area in chromium, with the CSP in
// force: an alert is acknowledged from the inbox and commented on from its
// page; the models catalog and a finished playground experiment render
// (their screenshots are the docs').
func TestBrowserAlerts(t *testing.T) {
	exe := chromium(t)
	srv, fakes := startWithModels(t, store.SQLite)
	fakes.Anthropic.SetDefault(fakellm.Reply{Text: "Rivers run to the sea, and rain refills them.", Usage: fakellm.Usage{Input: 22, Output: 9}})
	ctx := context.Background()
	api := apiClient(t, srv, srv.Key)
	agent := srv.StoreAgent(t, srv.AccountID, "Card checker", showDef, "dynamic_input")
	if _, err := api.CreateAlertConfig(ctx, client.CreateAlertConfigRequest{AlertType: "governance_blocked", AgentID: agent}); err != nil {
		t.Fatal(err)
	}
	a := raiseAlert(t, srv, api, srv.AccountID, agent, "Card number in the input")
	shots := screenshotDir(t)
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
	)

	row := `#alert-` + a.ID
	do(t, b, "acknowledge from the inbox",
		chromedp.Navigate(srv.URL+"/console/alerts"),
		chromedp.WaitVisible(css(row+` button`)),
		shoot(shots, "alerts-inbox.png"),
		chromedp.Click(css(row+` button`)),
		chromedp.WaitVisible(css(`p.flash`)),
	)
	if got := run(t, b, chromedp.Text(css(row+` .tag`))); got != "acknowledged" {
		t.Fatalf("the row's status after acknowledging: %q", got)
	}
	if d := alertStatus(t, api, a.ID); d.Alert.Status != "acknowledged" || len(d.History) != 2 || d.History[1].ChangedByUserID == nil || *d.History[1].ChangedByUserID != srv.UserID {
		t.Fatalf("after acknowledging in the browser: %+v", d)
	}

	do(t, b, "comment on the alert",
		chromedp.Navigate(srv.URL+"/console/alerts/"+a.ID),
		chromedp.WaitVisible(css(`#body`)),
		chromedp.SendKeys(css(`#body`), "Looking into the card check."),
		chromedp.Click(css(`#comments button[type=submit]`)),
		chromedp.WaitVisible(css(`#comments .comment`)),
		shoot(shots, "alerts-alert.png"),
	)
	if d := alertStatus(t, api, a.ID); len(d.Comments) != 1 || d.Comments[0].Body != "Looking into the card check." {
		t.Fatalf("comments after the browser's: %+v", d.Comments)
	}

	// The playground: the results fill in by polling, without a reload.
	do(t, b, "run an experiment",
		chromedp.Navigate(srv.URL+"/console/models/playground"),
		chromedp.WaitVisible(css(`#prompt`)),
		chromedp.SendKeys(css(`#prompt`), "Rivers flow to the sea. Rain fills the rivers again. Summarise."),
		chromedp.Click(css(`input[value=agentry_offline][name=model_ids]`)),
		chromedp.Click(css(`input[value=openai_gpt_4o_mini][name=model_ids]`)),
		chromedp.Click(css(`input[value=anthropic_claude_haiku_4_5][name=model_ids]`)),
		chromedp.SetValue(css(`#evaluator_model_id`), "agentry_offline"),
		chromedp.Submit(css(`#prompt`)),
		chromedp.WaitVisible(css(`#result-anthropic_claude_haiku_4_5 pre`)),
		chromedp.WaitVisible(css(`#best`)),
	)
	if n := run(t, b, chromedp.Evaluate[int](`document.querySelectorAll("#experiment-results .judgment").length`)); n != 3 {
		t.Fatalf("%d judgments on the page, want 3", n)
	}
	if got := run(t, b, chromedp.Text(css(`#experiment-status`))); got != client.ExperimentCompleted {
		t.Fatalf("experiment status on the page: %q", got)
	}
	do(t, b, "screenshots of the models area",
		shoot(shots, "models-experiment.png"),
		chromedp.Navigate(srv.URL+"/console/models"),
		chromedp.WaitVisible(css(`#model-agentry_offline`)),
		shootViewport(shots, "models-catalog.png"),
	)
}

// shootViewport saves what the window shows (a long page's full
// screenshot would be too large for the docs).
func shootViewport(dir, name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		png, err := chromedp.CaptureScreenshot()(ctx, tg)
		if err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.Void{}, os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
}
