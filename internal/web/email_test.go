package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// mailConsole is a server with the console whose mail goes to a loopback
// relay (sink) and whose DNS checks ask a loopback DNS server.
func mailConsole(t testing.TB, d store.Dialect) (*testserver.Server, *mailtest.Sink, *mailtest.DNS) {
	t.Helper()
	dnsSrv := mailtest.StartDNS(t)
	sink := mailtest.StartSink(t, "relayuser", "relaypass")
	srv := testserver.Start(t, d, func(c *server.Config) {
		c.MailDomain = "agent.test"
		c.MailMXHost = "mx.agent.test"
		c.SMTPRelayURL = "smtp://relayuser:relaypass@" + sink.Addr
		c.DNSResolver = dnsSrv.Addr
	})
	name, value, err := srv.S.EmailDomains.SharedDKIMRecord()
	if err != nil {
		t.Fatal(err)
	}
	dnsSrv.AddTXT(name, value)
	return srv, sink, dnsSrv
}

// mailOwner is an account whose owner has an address (where a test
// e-mail goes), with the owner's key and a member's key.
func mailOwner(t testing.TB, srv *testserver.Server, email string) (owner testserver.Tenant, memberKey string) {
	t.Helper()
	ctx := context.Background()
	u, a, err := directory.CreateUser(ctx, srv.DB, directory.NewUser{Email: email, Name: "Boss", OpeningCredits: 100})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := directory.CreateUser(ctx, srv.DB, directory.NewUser{Email: "member." + email, Name: "Member", OpeningCredits: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := directory.AddMember(ctx, srv.DB, a.ID, m.ID, store.RoleMember); err != nil {
		t.Fatal(err)
	}
	return testserver.Tenant{Key: srv.IssueKey(t, a.ID, u.ID, store.RoleOwner), AccountID: a.ID, UserID: u.ID},
		srv.IssueKey(t, a.ID, m.ID, store.RoleMember)
}

// htmxPost posts as htmx does: the CSRF token in its header.
func (b *browser) htmxPost(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", b.csrf)
	return b.do(req)
}

func TestEmailInboundPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv, _, _ := mailConsole(t, d)
		ctx := context.Background()
		owner, memberKey := mailOwner(t, srv, "boss@acme.test")
		inbox := srv.StoreAgent(t, owner.AccountID, "Support inbox", showDef, "email_received")
		srv.StoreAgent(t, owner.AccountID, "Plain", showDef, "dynamic_input")
		if _, err := srv.S.MailProtect.RecordRejection(ctx, protect.Rejection{AccountID: owner.AccountID, AgentID: inbox,
			Recipient: inbox + "@agent.test", Sender: "spammer@bad.test", Reason: "sender_blocked", Subject: "Buy now"}); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.S.MailProtect.SetPaused(ctx, owner.AccountID, true); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, srv)
		b.signInWithKey(owner.Key)

		p := b.get("/console/email")
		p.mustContain(t, "Support inbox", inbox+"@agent.test", "/console/email/agents/"+inbox, "paused",
			"spammer@bad.test", "sender_blocked", "Buy now", `value="disabled" selected`)
		if strings.Contains(p.Body, ">Plain<") {
			t.Fatal("an agent without an e-mail trigger is listed")
		}

		// The agent's addresses and settings; an alias through the API.
		p = b.get("/console/email/agents/" + inbox)
		p.mustContain(t, inbox+"@agent.test", "Alias")
		trigger := regexp.MustCompile(`/console/email/agents/` + inbox + `/triggers/([0-9a-f-]{36})`).FindStringSubmatch(p.Body)
		if trigger == nil {
			t.Fatalf("no trigger form:\n%s", p.Body)
		}
		save := "/console/email/agents/" + inbox + "/triggers/" + trigger[1]
		p = b.post(save, url.Values{"alias": {"-bad-"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad alias: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, `class="problems"`)
		p = b.post(save, url.Values{"alias": {"support"}, "require_sender_auth": {"off"}, "set_allowed_senders": {"on"}, "allowed_senders": {"ada@example.com\nexample.org"}})
		if p.Status != http.StatusOK {
			t.Fatalf("save: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, "Saved.", "support."+owner.AccountID+"@agent.test", "<code>ada@example.com</code>", "<code>example.org</code>",
			"Require sender authentication</dt><dd>no")
		p = b.get("/console/email/agents/" + inbox)
		p.mustContain(t, `value="support"`)
		// The alias is the account's: a second agent cannot take it (409).
		second := srv.StoreAgent(t, owner.AccountID, "Second inbox", showDef, "email_received")
		p = b.get("/console/email/agents/" + second)
		m := regexp.MustCompile(`/triggers/([0-9a-f-]{36})`).FindStringSubmatch(p.Body)
		p = b.post("/console/email/agents/"+second+"/triggers/"+m[1], url.Values{"alias": {"support"}})
		if p.Status != http.StatusConflict {
			t.Fatalf("taken alias: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, `class="problems"`)
		// A non-e-mail agent has no such page.
		plain := srv.StoreAgent(t, owner.AccountID, "Other", showDef, "dynamic_input")
		if p = b.get("/console/email/agents/" + plain); p.Status != http.StatusNotFound {
			t.Fatalf("non-e-mail agent: %d", p.Status)
		}

		// Blocklist and mode.
		b.get("/console/email")
		p = b.post("/console/email/blocked", url.Values{"sender_email": {"bad.test"}, "match_type": {"domain"}, "note": {"spam wave"}})
		p.mustContain(t, "Sender blocked.", "<code>bad.test</code>", "spam wave")
		id := regexp.MustCompile(`/console/email/blocked/([0-9a-f-]{36})/unblock`).FindStringSubmatch(p.Body)
		if id == nil {
			t.Fatalf("no unblock form:\n%s", p.Body)
		}
		p = b.post("/console/email/auto-block", url.Values{"mode": {"input"}})
		p.mustContain(t, "Auto-block mode saved.", `value="input" selected`)
		if p = b.post("/console/email/auto-block", url.Values{"mode": {"everything"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad mode: %d", p.Status)
		}

		// Resume, and cancel the queue.
		b.get("/console/email")
		p = b.post("/console/email/inbound/resume", nil)
		p.mustContain(t, "Inbound mail resumed.", "receiving")
		p = b.post("/console/email/inbound/resume", nil)
		p.mustContain(t, "Inbound mail was not paused.")
		p = b.post("/console/email/inbound/cancel-queued", nil)
		p.mustContain(t, "The queued e-mail runs were cancelled.")

		// A member reads, but the API refuses their changes: its 403 is the page.
		mb := newBrowser(t, srv)
		mb.signInWithKey(memberKey)
		mb.get("/console/email").mustContain(t, "Support inbox", "bad.test")
		if p = mb.post("/console/email/blocked", url.Values{"sender_email": {"x@y.test"}}); p.Status != http.StatusForbidden {
			t.Fatalf("member blocks: %d\n%s", p.Status, p.Body)
		}
		if p = mb.post("/console/email/blocked/"+id[1]+"/unblock", nil); p.Status != http.StatusForbidden {
			t.Fatalf("member unblocks: %d", p.Status)
		}
		if p = mb.post("/console/email/auto-block", url.Values{"mode": {"disabled"}}); p.Status != http.StatusForbidden {
			t.Fatalf("member mode: %d", p.Status)
		}

		// Another account sees none of it: its agent and entries are 404s.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		p = ob.get("/console/email")
		if p.Status != http.StatusOK || strings.Contains(p.Body, "Support inbox") || strings.Contains(p.Body, "spammer@bad.test") || strings.Contains(p.Body, "bad.test") {
			t.Fatalf("other account's e-mail page: %d\n%s", p.Status, p.Body)
		}
		if p = ob.get("/console/email/agents/" + inbox); p.Status != http.StatusNotFound {
			t.Fatalf("other account's agent: %d", p.Status)
		}
		if p = ob.post(save, url.Values{"alias": {"stolen"}}); p.Status != http.StatusNotFound {
			t.Fatalf("other account's trigger: %d", p.Status)
		}
		if p = ob.post("/console/email/blocked/"+id[1]+"/unblock", nil); p.Status != http.StatusNotFound {
			t.Fatalf("other account's blocklist entry: %d", p.Status)
		}
		// The owner unblocks.
		b.get("/console/email")
		b.post("/console/email/blocked/"+id[1]+"/unblock", nil).mustContain(t, "Sender unblocked.", "No sender is blocked.")
	})
}

var domainLink = regexp.MustCompile(`/console/email/domains/([0-9a-f-]{36})`)

func TestEmailDomainsPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv, sink, dnsSrv := mailConsole(t, d)
		owner, memberKey := mailOwner(t, srv, "boss@acme.test")
		b := newBrowser(t, srv)
		b.signInWithKey(owner.Key)

		p := b.get("/console/email/domains")
		p.mustContain(t, "No domain of your own", "Add a domain", `value="vanity"`)
		// The API's validation beside the form.
		p = b.post("/console/email/domains", url.Values{"kind": {"custom"}, "value": {"not a domain"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad domain: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, `class="problems"`, `value="not a domain"`)

		p = b.post("/console/email/domains", url.Values{"kind": {"custom"}, "value": {"agent.acme.test"}})
		m := domainLink.FindStringSubmatch(p.URL)
		if p.Status != http.StatusOK || m == nil {
			t.Fatalf("add: %d at %s\n%s", p.Status, p.URL, p.Body)
		}
		dom := "/console/email/domains/" + m[1]
		// The records to publish, pending, with the poll of the status.
		p.mustContain(t, "agent.acme.test", "pending", "agentry._domainkey.agent.acme.test", "_dmarc.agent.acme.test", "v=spf1 mx ~all",
			"mx.agent.test", `hx-post="`+dom+`/verify"`, `hx-trigger="every 10s"`, "DMARC, last 30 days")
		// A second custom domain is a conflict, shown on the form.
		p = b.post("/console/email/domains", url.Values{"kind": {"custom"}, "value": {"other.acme.test"}})
		if p.Status != http.StatusConflict && p.Status != http.StatusOK {
			t.Fatalf("second custom: %d", p.Status)
		}

		// Publish the records in the loopback DNS; the poll's check turns it verified.
		for _, r := range regexp.MustCompile(`(?s)<tr data-record="(\w+)">\s*<td>(\w+)</td>\s*<td><code>([^<]+)</code>.*?<code class="email-value">([^<]+)</code>`).FindAllStringSubmatch(b.get(dom).Body, -1) {
			switch r[2] {
			case "MX":
				dnsSrv.Add(t, r[3]+". 60 IN MX "+r[4]+".")
			case "TXT":
				dnsSrv.AddTXT(r[3], unescape(r[4]))
			}
		}
		p = b.htmxPost(dom + "/verify")
		if p.Status != http.StatusOK || strings.Contains(p.Body, "<html") {
			t.Fatalf("verify fragment: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, `id="domain-status"`, `class="tag state-on">verified</span>`)
		if strings.Contains(p.Body, "hx-trigger") && strings.Contains(p.Body, "every") {
			t.Fatalf("a verified domain still polls:\n%s", p.Body)
		}
		b.get(dom+"/status").mustContain(t, "verified")

		// The test e-mail reaches the owner; then primary.
		p = b.get(dom)
		p = b.post(dom+"/test-email", nil)
		p.mustContain(t, "Test e-mail sent")
		if msgs := sink.Wait(t, 1); len(msgs) != 1 || msgs[0].To[0] != "boss@acme.test" {
			t.Fatalf("test e-mail: %+v", msgs)
		}
		p = b.post(dom+"/primary", nil)
		p.mustContain(t, "Agents now send from and receive on this domain.", "primary")

		// A member reads the domains; the API refuses their changes (403).
		mb := newBrowser(t, srv)
		mb.signInWithKey(memberKey)
		mb.get(dom).mustContain(t, "agent.acme.test")
		if p = mb.post(dom+"/remove", nil); p.Status != http.StatusForbidden {
			t.Fatalf("member removes: %d\n%s", p.Status, p.Body)
		}

		// Another account: 404 for the page, the fragment and the actions.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		ob.get("/console/email/domains")
		for _, path := range []string{dom, dom + "/status"} {
			if p = ob.get(path); p.Status != http.StatusNotFound {
				t.Fatalf("other account GET %s: %d", path, p.Status)
			}
		}
		for _, path := range []string{dom + "/verify", dom + "/primary", dom + "/test-email", dom + "/remove"} {
			if p = ob.post(path, nil); p.Status != http.StatusNotFound {
				t.Fatalf("other account POST %s: %d", path, p.Status)
			}
		}

		// Back to the shared domain, then remove it.
		b.get("/console/email/domains")
		b.post("/console/email/domains/use-shared", nil).mustContain(t, "shared domain again")
		b.get(dom)
		p = b.post(dom+"/remove", nil)
		p.mustContain(t, "Domain removed", "No domain of your own")
	})
}

// unescape undoes html/template's escaping of a record value.
func unescape(s string) string {
	return strings.NewReplacer("&#43;", "+", "&#34;", `"`, "&amp;", "&", "&#39;", "'", "&lt;", "<", "&gt;", ">").Replace(s)
}
