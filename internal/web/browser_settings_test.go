package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// TestBrowserAPIKey creates an API key in chromium, reads its secret once,
// checks that it works, and revokes it from the settings page.
func TestBrowserAPIKey(t *testing.T) {
	exe := chromium(t)
	srv := testserver.Start(t, store.SQLite)
	ctx := context.Background()
	for i := range 12 { // some spending, for the chart
		if _, err := billing.NewCredits(srv.DB).Charge(ctx, srv.AccountID, float64(1000*(i%5+1)), "prompt_call test-model", ""); err != nil {
			t.Fatal(err)
		}
	}
	shots := screenshotDir(t)
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
		chromedp.Navigate(srv.URL+"/console/settings"),
		chromedp.WaitVisible(css(`#key_name`)),
		shoot(shots, "settings.png"),
	)
	do(t, b, "create a key",
		chromedp.SendKeys(css(`#key_name`), "deploy bot"),
		chromedp.Submit(css(`#key_name`)),
		chromedp.WaitVisible(css(`#new-key-secret`)),
		shoot(shots, "settings-new-key.png"),
	)
	secret := strings.TrimSpace(run(t, b, chromedp.Text(css(`#new-key-secret`))))
	if r := srv.Do(t, "GET", "/me", secret, nil); r.Status != http.StatusOK {
		t.Fatalf("the new key %q does not work: %d", secret, r.Status)
	}
	if where := run(t, b, chromedp.Evaluate[string](`location.href + document.cookie`)); strings.Contains(where, secret) {
		t.Fatal("the new key is in the URL or a cookie")
	}
	do(t, b, "reload", chromedp.Navigate(srv.URL+"/console/settings"), chromedp.WaitVisible(css(`#api-keys`)))
	if shown := run(t, b, chromedp.Evaluate[bool](`document.body.innerHTML.includes(`+jsString(secret)+`)`)); shown {
		t.Fatal("the key is shown again after a reload")
	}
	// Revoke it (the confirmation answered yes).
	do(t, b, "revoke",
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Evaluate[chromedp.Void](`Array.from(document.querySelectorAll("#api-keys tr[data-key]")).find(tr => tr.children[0].textContent === "deploy bot").querySelector("button").click()`),
		chromedp.WaitVisible(css(`p.flash`)),
	)
	if flash := run(t, b, chromedp.Text(css(`p.flash`))); !strings.Contains(flash, "Key revoked") {
		t.Fatalf("after revoking: %q", flash)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Do(t, "GET", "/me", secret, nil).Status != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("the revoked key still works")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
