package api_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func b64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 76 {
		out.WriteString(s[:76] + "\r\n")
		s = s[76:]
	}
	out.WriteString(s + "\r\n")
	return out.String()
}

// ownerWithEmail makes an account whose owner has an address (the only
// place a test message may go) and answers its key.
func ownerWithEmail(t *testing.T, s *testserver.Server, email string) testserver.Tenant {
	t.Helper()
	u, a, err := directory.CreateUser(context.Background(), s.DB, directory.NewUser{Email: email, Name: "Boss", OpeningCredits: 100})
	if err != nil {
		t.Fatal(err)
	}
	return testserver.Tenant{Key: s.IssueKey(t, a.ID, u.ID, store.RoleOwner), AccountID: a.ID, UserID: u.ID}
}

// publish puts a domain's asked-for records into the loopback DNS.
func publish(t *testing.T, dnsSrv *mailtest.DNS, d api.EmailDomainResponse, skip ...string) {
	t.Helper()
	for _, r := range d.DNSRecords {
		if len(skip) > 0 && r.Key == skip[0] {
			continue
		}
		switch r.Type {
		case "MX":
			dnsSrv.Add(t, r.Name+". 60 IN MX 10 "+*r.MXHost+".")
		case "TXT":
			dnsSrv.AddTXT(r.Name, r.Value)
		}
	}
}

func TestEmailDomainsLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s, sink, dnsSrv := mailServer(t, d)
		boss := ownerWithEmail(t, s, "boss@acme.test")

		// An empty list with the capabilities.
		r := s.Do(t, "GET", "/email-domains", boss.Key, nil)
		var list api.EmailDomainsListResponse
		r.JSON(t, &list)
		if r.Status != 200 || len(list.Domains) != 0 || !list.CanAddVanity || !list.CanAddCustom || list.HasVanity || list.HasCustom {
			t.Fatalf("empty list: %d %s", r.Status, r.Body)
		}

		// Refusals: bad names, delegation without an update server, keys
		// without a user, members.
		wantLoc(t, s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "custom", "value": "not a domain"}), "value_error", "body", "value")
		wantLoc(t, s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "vanity", "value": "-bad-"}), "value_error", "body", "value")
		wantLoc(t, s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "other", "value": "x.test"}), "value_error", "body", "kind")
		r = s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "custom", "value": "agent.acme.test", "delegated": true})
		wantLoc(t, r, "value_error", "body", "delegated")
		if !strings.Contains(string(r.Body), "SERVICE_DNS_UPDATE_SERVER") {
			t.Errorf("delegated refusal does not name the setting: %s", r.Body)
		}
		accountKey := s.IssueKey(t, boss.AccountID, "", store.RoleOwner)
		wantStatus(t, s.Do(t, "GET", "/email-domains", accountKey, nil), http.StatusForbidden)
		memberKey := s.IssueKey(t, boss.AccountID, boss.UserID, store.RoleMember)
		wantStatus(t, s.Do(t, "POST", "/email-domains", memberKey, map[string]any{"kind": "custom", "value": "agent.acme.test"}), http.StatusForbidden)

		// A custom domain starts pending, with the four records to publish.
		r = s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "custom", "value": "Agent.Acme.test"})
		var dom api.EmailDomainResponse
		r.JSON(t, &dom)
		if r.Status != 200 || dom.Domain != "agent.acme.test" || dom.Status != "pending" || dom.Verified || len(dom.DNSRecords) != 4 ||
			dom.ZoneApex != "acme.test" || dom.ErrorMessage == nil || dom.LastCheckedAt == nil {
			t.Fatalf("add: %d %s", r.Status, r.Body)
		}
		keys := map[string]api.DNSRecordResponse{}
		for _, rec := range dom.DNSRecords {
			keys[rec.Key] = rec
		}
		if keys["mx"].Value != "mx.agent.test" || keys["dkim"].Name != "agentry._domainkey.agent.acme.test" || keys["dkim"].RelativeName != "agentry._domainkey.agent" ||
			!strings.Contains(keys["dmarc"].Value, "rua=mailto:dmarc-reports@agent.acme.test") || keys["spf"].Value != "v=spf1 mx ~all" {
			t.Fatalf("records: %+v", dom.DNSRecords)
		}
		wantStatus(t, s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "custom", "value": "other.acme.test"}), http.StatusConflict)
		wantStatus(t, s.Do(t, "POST", "/email-domains/"+dom.ID+"/primary", boss.Key, nil), http.StatusConflict)
		wantStatus(t, s.Do(t, "POST", "/email-domains/"+dom.ID+"/test-email", boss.Key, nil), http.StatusConflict)

		// Published (all but DKIM): still pending, naming what is missing.
		publish(t, dnsSrv, dom, "dkim")
		r = s.Do(t, "POST", "/email-domains/"+dom.ID+"/verify", boss.Key, nil)
		r.JSON(t, &dom)
		if dom.Status != "pending" || dom.ErrorMessage == nil || !strings.Contains(*dom.ErrorMessage, "dkim") {
			t.Fatalf("partial verify: %s", r.Body)
		}
		dnsSrv.AddTXT(keys["dkim"].Name, keys["dkim"].Value)
		r = s.Do(t, "POST", "/email-domains/"+dom.ID+"/verify", boss.Key, nil)
		r.JSON(t, &dom)
		if dom.Status != "verified" || !dom.Verified || dom.VerifiedAt == nil || dom.ErrorMessage != nil {
			t.Fatalf("verify: %s", r.Body)
		}
		for _, rec := range dom.DNSRecords {
			if !rec.OK {
				t.Errorf("record %s not ok: %+v", rec.Key, rec)
			}
		}
		if acct, ok, err := s.S.EmailDomains.AccountForDomain(context.Background(), "AGENT.acme.test."); err != nil || !ok || acct != boss.AccountID {
			t.Errorf("directory: %q %v %v", acct, ok, err)
		}

		// Primary: the account's agents now send as the domain.
		r = s.Do(t, "POST", "/email-domains/"+dom.ID+"/primary", boss.Key, nil)
		r.JSON(t, &dom)
		if r.Status != 200 || !dom.IsPrimary {
			t.Fatalf("primary: %s", r.Body)
		}
		agent := s.StoreAgent(t, boss.AccountID, "Acme bot", `{"child_steps":[{"id":"m","step_type":"send_email","to":"client@example.test","subject":"hi"}]}`, "dynamic_input")
		r = s.Do(t, "POST", "/agents/"+agent+"/runs", boss.Key, map[string]any{"input": "body text"})
		var start struct {
			RunID string `json:"run_id"`
		}
		r.JSON(t, &start)
		waitRun(t, s, boss.Key, start.RunID)
		got := sink.Wait(t, 1)
		if got[0].From != agent+"@agent.acme.test" || verifyDKIM(t, dnsSrv.Addr, got[0].Data) != "agent.acme.test" {
			t.Fatalf("sent as %s", got[0].From)
		}

		// The test message goes to the owner, and only there.
		r = s.Do(t, "POST", "/email-domains/"+dom.ID+"/test-email", boss.Key, nil)
		wantStatus(t, r, http.StatusOK)
		got = sink.Wait(t, 2)
		if got[1].From != "noreply@agent.acme.test" || len(got[1].To) != 1 || got[1].To[0] != "boss@acme.test" ||
			verifyDKIM(t, dnsSrv.Addr, got[1].Data) != "agent.acme.test" {
			t.Fatalf("test e-mail: %+v", got[1])
		}

		// A vanity name too (one of each kind), listed with has_*.
		r = s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "vanity", "value": "acme"})
		var van api.EmailDomainResponse
		r.JSON(t, &van)
		if r.Status != 200 || van.Domain != "acme.agent.test" || van.Kind != "vanity" || van.ZoneApex != "agent.test" {
			t.Fatalf("vanity: %s", r.Body)
		}
		other := ownerWithEmail(t, s, "other@else.test")
		wantStatus(t, s.Do(t, "POST", "/email-domains", other.Key, map[string]any{"kind": "vanity", "value": "acme"}), http.StatusConflict)
		r = s.Do(t, "GET", "/email-domains", boss.Key, nil)
		r.JSON(t, &list)
		if len(list.Domains) != 2 || !list.HasVanity || !list.HasCustom {
			t.Fatalf("list: %s", r.Body)
		}

		// A record that goes away: still verified, regressing.
		dnsSrv.Remove(keys["dkim"].Name)
		r = s.Do(t, "POST", "/email-domains/"+dom.ID+"/verify", boss.Key, nil)
		r.JSON(t, &dom)
		if dom.Status != "verified" || !dom.Regressing || dom.ErrorMessage == nil {
			t.Fatalf("regressing: %s", r.Body)
		}

		// DMARC reports sent to the rua address are summed.
		if !s.S.DMARC.IsReportAddress("DMARC-Reports@agent.acme.test") || s.S.DMARC.IsReportAddress("bob@agent.acme.test") {
			t.Error("IsReportAddress")
		}
		for i := 0; i < 2; i++ { // the same report twice counts once
			if err := s.S.DMARC.Ingest(context.Background(), "dmarc-reports@agent.acme.test", dmarcReport(t, "agent.acme.test", "r-1")); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.S.DMARC.Ingest(context.Background(), "dmarc-reports@agent.acme.test", dmarcReport(t, "evil.test", "r-2")); err == nil {
			t.Error("a report about another domain was accepted")
		}
		r = s.Do(t, "GET", "/email-domains/"+dom.ID+"/dmarc?days=7", boss.Key, nil)
		var sum api.DmarcSummaryResponse
		r.JSON(t, &sum)
		if r.Status != 200 || sum.WindowDays != 7 || sum.ReportCount != 1 || sum.TotalMessages != 10 || sum.PassedMessages != 8 || sum.FailedMessages != 2 ||
			sum.PassRate == nil || *sum.PassRate != 0.8 || sum.Dispositions["quarantine"] != 2 || sum.Dispositions["none"] != 8 ||
			len(sum.TopFailingSources) != 1 || sum.TopFailingSources[0].SourceIP != "203.0.113.7" || !sum.Monitored {
			t.Fatalf("dmarc: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "GET", "/email-domains/"+van.ID+"/dmarc?days=100000", boss.Key, nil)
		r.JSON(t, &sum)
		if sum.WindowDays != 365 || sum.ReportCount != 0 || sum.PassRate != nil || sum.Monitored {
			t.Fatalf("empty dmarc (never verified, so not monitored): %s", r.Body)
		}
		// The owner switches to their own DMARC reporting: no longer monitored.
		dnsSrv.Remove(keys["dmarc"].Name)
		dnsSrv.AddTXT(keys["dmarc"].Name, "v=DMARC1; p=none; rua=mailto:postmaster@acme.test")
		wantStatus(t, s.Do(t, "POST", "/email-domains/"+dom.ID+"/verify", boss.Key, nil), http.StatusOK)
		r = s.Do(t, "GET", "/email-domains/"+dom.ID+"/dmarc?days=7", boss.Key, nil)
		r.JSON(t, &sum)
		if r.Status != 200 || sum.Monitored {
			t.Fatalf("own rua still monitored: %s", r.Body)
		}

		// Another account reaches none of it.
		for _, req := range [][2]string{{"POST", "/verify"}, {"POST", "/primary"}, {"POST", "/test-email"}, {"GET", "/dmarc"}, {"DELETE", ""}} {
			wantStatus(t, s.Do(t, req[0], "/email-domains/"+dom.ID+req[1], other.Key, nil), http.StatusNotFound)
		}

		// Back to the shared domain; the domain stays.
		wantStatus(t, s.Do(t, "POST", "/email-domains/use-shared-domain", boss.Key, nil), http.StatusNoContent)
		r = s.Do(t, "GET", "/email-domains", boss.Key, nil)
		r.JSON(t, &list)
		for _, x := range list.Domains {
			if x.IsPrimary {
				t.Errorf("%s still primary", x.Domain)
			}
		}
		r = s.Do(t, "DELETE", "/email-domains/"+dom.ID, boss.Key, nil)
		var rm api.RemoveEmailDomainResponse
		r.JSON(t, &rm)
		if r.Status != 200 || !rm.Removed || rm.CleanupNote != nil {
			t.Fatalf("remove: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "GET", "/email-domains/"+dom.ID+"/dmarc", boss.Key, nil), http.StatusNotFound)
		if _, ok, _ := s.S.EmailDomains.AccountForDomain(context.Background(), "agent.acme.test"); ok {
			t.Error("a removed domain still routes")
		}
	})
}

// With an RFC 2136 server configured, a delegated domain's records are
// published by the service (TSIG-signed), verify at once, and are
// withdrawn on removal with a note about the registrar's delegation.
func TestDelegatedEmailDomain(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		secret := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
		dnsSrv := mailtest.StartDNS(t, "agentry-key.", secret)
		s, _, _ := mailServer(t, d, func(c *server.Config) {
			c.DNSResolver = dnsSrv.Addr
			c.DNSUpdateServer = dnsSrv.Addr
			c.DNSUpdateTSIG = "agentry-key:" + secret
		})
		boss := ownerWithEmail(t, s, "boss@deleg.test")
		r := s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "custom", "value": "mail.deleg.test", "delegated": true})
		var dom api.EmailDomainResponse
		r.JSON(t, &dom)
		if r.Status != 200 || !dom.Delegated || dom.Status != "verified" || dom.ZoneApex != "mail.deleg.test" {
			t.Fatalf("delegated add: %d %s", r.Status, r.Body)
		}
		if len(dnsSrv.Updates()) != 1 || !dnsSrv.Has("agentry._domainkey.mail.deleg.test", 16) {
			t.Fatalf("updates: %d", len(dnsSrv.Updates()))
		}
		r = s.Do(t, "DELETE", "/email-domains/"+dom.ID, boss.Key, nil)
		var rm api.RemoveEmailDomainResponse
		r.JSON(t, &rm)
		if rm.CleanupNote == nil || !strings.Contains(*rm.CleanupNote, "NS records") {
			t.Fatalf("remove: %s", r.Body)
		}
		if dnsSrv.Has("agentry._domainkey.mail.deleg.test", 16) || dnsSrv.Has("mail.deleg.test", 15) {
			t.Error("records left in DNS")
		}
	})
}

// The background sweep (a River periodic job) verifies a domain once its
// records appear, with nobody asking.
func TestEmailDomainSweep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s, _, dnsSrv := mailServer(t, d, func(c *server.Config) { c.DomainSweepInterval = time.Millisecond })
		boss := ownerWithEmail(t, s, "boss@sweep.test")
		r := s.Do(t, "POST", "/email-domains", boss.Key, map[string]any{"kind": "custom", "value": "agent.sweep.test"})
		var dom api.EmailDomainResponse
		r.JSON(t, &dom)
		if dom.Status != "pending" {
			t.Fatalf("add: %s", r.Body)
		}
		publish(t, dnsSrv, dom)
		deadline := time.Now().Add(20 * time.Second)
		for {
			r = s.Do(t, "GET", "/email-domains", boss.Key, nil)
			var list api.EmailDomainsListResponse
			r.JSON(t, &list)
			if len(list.Domains) == 1 && list.Domains[0].Verified {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the sweep did not verify the domain: %s", r.Body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}
