package cli_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

func TestEmailSendingCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	dnsSrv := mailtest.StartDNS(t)
	ts := testserver.Start(t, store.SQLite, func(c *server.Config) {
		c.MailDomain = "agent.test"
		c.DNSResolver = dnsSrv.Addr
	})
	g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
	var d client.EmailDomain
	run(t, append(g, "email", "domains", "add", "--kind", "custom", "--value", "agent.cli.test")...).ok(t, &d)
	if d.Domain != "agent.cli.test" || d.Status != "pending" || len(d.DNSRecords) != 4 {
		t.Fatalf("add: %+v", d)
	}
	for _, r := range d.DNSRecords {
		if r.Type == "MX" {
			dnsSrv.Add(t, r.Name+". 60 IN MX 10 "+*r.MXHost+".")
		} else {
			dnsSrv.AddTXT(r.Name, r.Value)
		}
	}
	run(t, append(g, "email", "domains", "verify", d.ID)...).ok(t, &d)
	if d.Status != "verified" {
		t.Fatalf("verify: %+v", d)
	}
	run(t, append(g, "email", "domains", "primary", d.ID)...).ok(t, &d)
	var list client.EmailDomains
	run(t, append(g, "email", "domains", "list")...).ok(t, &list)
	if len(list.Domains) != 1 || !list.Domains[0].IsPrimary || !list.HasCustom {
		t.Fatalf("list: %+v", list)
	}
	var sum client.DMARCSummary
	run(t, append(g, "email", "domains", "dmarc", d.ID, "--days", "3")...).ok(t, &sum)
	if sum.WindowDays != 3 || sum.ReportCount != 0 {
		t.Fatalf("dmarc: %+v", sum)
	}
	run(t, append(g, "email", "domains", "use-shared")...).ok(t, nil)
	run(t, append(g, "email", "domains", "remove", d.ID)...).ok(t, nil)

	if _, err := ts.S.Mail.AddOptOut(context.Background(), sending.OptOut{AccountID: ts.AccountID, RecipientEmail: "x@example.test"}); err != nil {
		t.Fatal(err)
	}
	var outs []client.EmailOptOut
	run(t, append(g, "email", "optouts", "list")...).ok(t, &outs)
	if len(outs) != 1 || outs[0].RecipientEmail != "x@example.test" || outs[0].AgentID != nil {
		t.Fatalf("optouts: %+v", outs)
	}
	run(t, append(g, "email", "optouts", "revoke", outs[0].ID)...).ok(t, nil)
	run(t, append(g, "email", "optouts", "revoke", outs[0].ID)...).exits(t, 4, "not found")
}
