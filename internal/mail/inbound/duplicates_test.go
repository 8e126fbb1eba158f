package inbound_test

import (
	"context"
	"net/http"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestOneDeliveryPerMailbox: one SMTP transaction naming the same agent
// 50 times — the same address, in other cases, and its other address —
// is accepted and starts one run, and counts once against the account's
// per-minute limit (set to 3 here: the duplicates used to take it all and
// draw 451s) and its hourly run quota. A second agent named in the same
// transaction gets its own delivery.
func TestOneDeliveryPerMailbox(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		e := start(t, d, func(c *server.Config) { c.SMTPPerAccountPerMinute = 3 })
		e.dns.AddTXT("sender.example", "v=spf1 ip4:127.0.0.1 -all")
		e.dns.AddTXT("_dmarc.sender.example", "v=DMARC1; p=reject")
		key := e.dns.PublishDKIM(t, "sender.example", "s1")
		setConfig(t, e, `{"alias":"Support","allowed_senders":["sender.example"]}`)
		alias := "support." + e.ts.AccountID + "@agent.localhost"
		byID := e.agentID + "@agent.localhost"
		second := e.ts.StoreAgent(t, e.ts.AccountID, "second", echoDef, "email_received")
		tr, err := agents.NewRepo(e.ts.DB).AgentTrigger(context.Background(), e.ts.AccountID, second)
		if err != nil {
			t.Fatal(err)
		}
		if r := e.ts.Do(t, "PUT", "/agents/"+second+"/triggers/"+tr.ID+"/email-config", e.ts.Key,
			`{"allowed_senders":["sender.example"]}`); r.Status != http.StatusOK {
			t.Fatalf("second agent's config: %d %s", r.Status, r.Body)
		}

		c, err := smtp.Dial(e.smtpAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Hello("mx.sender.example"); err != nil {
			t.Fatal(err)
		}
		if err := c.Mail("ada@sender.example"); err != nil {
			t.Fatal(err)
		}
		for i := range 49 {
			to := []string{alias, strings.ToUpper(alias), byID, strings.ToUpper(byID)}[i%4]
			if err := c.Rcpt(to); err != nil {
				t.Fatalf("RCPT %d (%s): %v", i+1, to, err)
			}
		}
		if err := c.Rcpt(second + "@agent.localhost"); err != nil {
			t.Fatalf("the second agent: %v", err)
		}
		w, err := c.Data()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(key.Sign(t, message("ada@sender.example", alias, "Once"))); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c.Quit()

		waitRuns(t, e, "completed", 1)
		time.Sleep(300 * time.Millisecond) // a duplicate run would have started by now
		rs, _, err := runs.NewRepo(e.ts.DB, nil).RunsOfAgent(context.Background(), e.ts.AccountID, e.agentID, "", 100, 0)
		if err != nil || len(rs) != 1 {
			t.Fatalf("the agent has %d runs, want 1 (%v)", len(rs), err)
		}
		var n int
		if err := e.ts.DB.R.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM inbound_emails WHERE account_id = $1`,
			e.ts.AccountID).Scan(&n); err != nil || n != 2 {
			t.Fatalf("%d messages queued, want 2 (one per agent): %v", n, err)
		}
		// The per-minute limit counted two deliveries: one more message is
		// accepted, and the one after is refused.
		if err := send(t, e.smtpAddr, "ada@sender.example", alias, key.Sign(t, message("ada@sender.example", alias, "Third"))); err != nil {
			t.Fatalf("the third delivery of the minute: %v", err)
		}
		if err := send(t, e.smtpAddr, "ada@sender.example", alias, key.Sign(t, message("ada@sender.example", alias, "Fourth"))); code(err) != 451 {
			t.Fatalf("the fourth delivery of the minute: %v, want 451", err)
		}
	})
}
