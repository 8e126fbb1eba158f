package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/web"
	"github.com/chromedp/chromedp"
)

// TestBrowserEmailDomain adds a sending domain in chromium, reads the DNS
// records it must publish from the page, publishes them on the loopback
// DNS server, and watches the status turn verified without a reload (the
// page's htmx poll checks the records), with the CSP in force.
func TestBrowserEmailDomain(t *testing.T) {
	exe := chromium(t)
	srv, _, dnsSrv := mailConsole(t, store.SQLite)
	owner, _ := mailOwner(t, srv, "boss@acme.test")
	inbox := srv.StoreAgent(t, owner.AccountID, "Support inbox", showDef, "email_received")
	if _, err := srv.S.MailProtect.RecordRejection(context.Background(), protect.Rejection{AccountID: owner.AccountID, AgentID: inbox,
		Recipient: inbox + "@agent.test", Sender: "spammer@bad.test", Reason: "sender_not_allowed", Subject: "Cheap watches"}); err != nil {
		t.Fatal(err)
	}
	old := web.DomainPollSeconds
	web.DomainPollSeconds = 1
	t.Cleanup(func() { web.DomainPollSeconds = old })
	shots := screenshotDir(t)
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), owner.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
		chromedp.Navigate(srv.URL+"/console/email"),
		chromedp.WaitVisible(css(`#rejections`)),
		shoot(shots, "email-inbound.png"),
	)
	do(t, b, "add a domain",
		chromedp.Navigate(srv.URL+"/console/email/domains"),
		chromedp.WaitVisible(css(`#value`)),
		chromedp.SendKeys(css(`#value`), "agent.acme.test"),
		chromedp.Submit(css(`#value`)),
		chromedp.WaitVisible(css(`#dns-records tr[data-record="dkim"]`)),
		shoot(shots, "email-domain-pending.png"),
	)
	if h1 := run(t, b, chromedp.Text(css(`h1`))); h1 != "agent.acme.test" {
		t.Fatalf("domain page heading %q", h1)
	}
	// The records as the page shows them: type, name, value.
	records := run(t, b, chromedp.Evaluate[[][]string](`Array.from(document.querySelectorAll("#dns-records tr[data-record]")).map(tr =>
		[tr.children[0].textContent.trim(), tr.querySelector("td:nth-child(2) code").textContent.trim(), tr.querySelector("code.email-value").textContent.trim()])`))
	if len(records) != 4 {
		t.Fatalf("records shown: %v", records)
	}
	if status := run(t, b, chromedp.Text(css(`#domain-status`))); !strings.Contains(status, "pending") {
		t.Fatalf("status before publishing: %q", status)
	}
	run(t, b, chromedp.Evaluate[bool](`window.__notReloaded = true`))
	for _, r := range records {
		switch r[0] {
		case "MX":
			dnsSrv.Add(t, r[1]+". 60 IN MX "+r[2]+".")
		case "TXT":
			dnsSrv.AddTXT(r[1], r[2])
		}
	}
	do(t, b, "verified, live",
		chromedp.WaitVisible(css(`#domain-status .tag.state-on`)),
		shoot(shots, "email-domain-verified.png"),
	)
	if same := run(t, b, chromedp.Evaluate[bool](`window.__notReloaded === true`)); !same {
		t.Fatal("the page reloaded instead of swapping the status")
	}
	if polls := run(t, b, chromedp.Evaluate[bool](`document.querySelector("#domain-status").hasAttribute("hx-trigger")`)); polls {
		t.Fatal("a verified domain's status still polls")
	}
}
