package inbound_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/smtp"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// echoDef answers the input: a run's output shows what the run received.
const echoDef = `{"child_steps":[{"id":"echo","step_type":"text","text":"got {{input}}"}]}`

type env struct {
	ts        *testserver.Server
	dns       *mailtest.DNS
	smtpAddr  string
	agentID   string
	triggerID string
}

func start(t *testing.T, d store.Dialect, opts ...func(*server.Config)) env {
	t.Helper()
	dnsSrv := mailtest.StartDNS(t)
	ts := testserver.Start(t, d, append([]func(*server.Config){func(c *server.Config) {
		c.SMTPAddr = "127.0.0.1:0"
		c.DNSResolver = dnsSrv.Addr
	}}, opts...)...)
	agentID := ts.StoreAgent(t, ts.AccountID, "mailbox", echoDef, "email_received")
	tr, err := agents.NewRepo(ts.DB).AgentTrigger(context.Background(), ts.AccountID, agentID)
	if err != nil {
		t.Fatal(err)
	}
	return env{ts: ts, dns: dnsSrv, smtpAddr: ts.S.SMTPAddr().String(), agentID: agentID, triggerID: tr.ID}
}

// send delivers one message with a real SMTP client and returns the
// server's refusal, if any.
func send(t *testing.T, addr, from, to string, msg []byte) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("mx.sender.example"); err != nil {
		return err
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func message(from, to, subject string, extra ...string) []byte {
	h := "From: " + from + "\r\nTo: " + to + "\r\nSubject: " + subject + "\r\nMessage-ID: <" + fmt.Sprint(time.Now().UnixNano()) + "@sender.example>\r\n" +
		"Date: Mon, 23 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
	for _, e := range extra {
		h += e + "\r\n"
	}
	return []byte(h + "Content-Type: multipart/mixed; boundary=XYZ\r\n\r\n" +
		"--XYZ\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlease summarise the attached notes.\r\n" +
		"--XYZ\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Please summarise the attached notes.</p>\r\n" +
		"--XYZ\r\nContent-Type: text/plain; name=notes.txt\r\nContent-Disposition: attachment; filename=notes.txt\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		"bm90ZXMgb2YgdGhlIG1lZXRpbmc=\r\n--XYZ--\r\n")
}

func code(err error) int {
	var pe *textproto.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return 0
}

// runs waits until the agent has n runs in status and returns them.
func waitRuns(t *testing.T, e env, status string, n int) []runs.Run {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rs, _, err := runs.NewRepo(e.ts.DB, nil).RunsOfAgent(context.Background(), e.ts.AccountID, e.agentID, status, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) >= n {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent has %d %s runs, want %d", len(rs), status, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitRejection(t *testing.T, e env, reason string) { waitRejections(t, e, reason, 1) }

// waitRejections waits until at least n rejections have reason.
func waitRejections(t *testing.T, e env, reason string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var rs []struct {
			Reason  string  `json:"reason"`
			Subject *string `json:"subject"`
		}
		e.ts.Do(t, "GET", "/agents/inbound-email-rejections?limit=200", e.ts.Key, nil).JSON(t, &rs)
		seen := 0
		for _, r := range rs {
			if r.Reason == reason {
				seen++
			}
		}
		if seen >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s rejection among %+v", reason, rs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func setConfig(t *testing.T, e env, body string) map[string]any {
	t.Helper()
	r := e.ts.Do(t, "PUT", "/agents/"+e.agentID+"/triggers/"+e.triggerID+"/email-config", e.ts.Key, body)
	if r.Status != 200 {
		t.Fatalf("email-config: %d %s", r.Status, r.Body)
	}
	var out map[string]any
	r.JSON(t, &out)
	return out
}

// TestMailStartsARun: an authenticated message to an agent's alias, sent
// by a real SMTP client, starts one run whose input is the parsed message.
func TestMailStartsARun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		e := start(t, d)
		e.dns.AddTXT("sender.example", "v=spf1 ip4:127.0.0.1 -all")
		e.dns.AddTXT("_dmarc.sender.example", "v=DMARC1; p=reject")
		key := e.dns.PublishDKIM(t, "sender.example", "s1")

		cfg := setConfig(t, e, `{"alias":"Support","allowed_senders":["sender.example"]}`)
		alias := "support." + e.ts.AccountID + "@agent.localhost"
		addrs, _ := cfg["email_addresses"].([]any)
		if len(addrs) != 2 || addrs[0] != e.agentID+"@agent.localhost" || addrs[1] != alias {
			t.Fatalf("addresses %v", cfg["email_addresses"])
		}
		if cfg["email_alias"] != "support" || cfg["email_require_sender_auth"] != true || cfg["email_ignore_auto_generated"] != true {
			t.Fatalf("config %v", cfg)
		}

		msg := key.Sign(t, message("Ada <ada@sender.example>", alias, "Quarterly notes"))
		if err := send(t, e.smtpAddr, "ada@sender.example", alias, msg); err != nil {
			t.Fatalf("send: %v", err)
		}
		rs := waitRuns(t, e, "completed", 1)
		var in struct {
			Subject     string `json:"subject"`
			From        string `json:"from"`
			Text        string `json:"text"`
			HTML        string `json:"html"`
			Attachments []struct {
				Filename, Text string
				BlobKey        string `json:"blob_key"`
				Size           int64
			} `json:"attachments"`
			Envelope       struct{ Recipient string } `json:"envelope"`
			Authentication struct {
				SPF   string   `json:"spf"`
				DKIM  []string `json:"dkim_pass"`
				DMARC string   `json:"dmarc"`
			} `json:"authentication"`
		}
		if err := json.Unmarshal([]byte(*rs[0].Input), &in); err != nil {
			t.Fatalf("input is not the parsed message: %v\n%s", err, *rs[0].Input)
		}
		if in.Subject != "Quarterly notes" || in.From != "ada@sender.example" || !strings.Contains(in.Text, "summarise") ||
			!strings.Contains(in.HTML, "<p>") || in.Envelope.Recipient != alias {
			t.Errorf("input %+v", in)
		}
		if in.Authentication.SPF != "pass" || len(in.Authentication.DKIM) != 1 || in.Authentication.DMARC != "pass" {
			t.Errorf("authentication %+v", in.Authentication)
		}
		if len(in.Attachments) != 1 || in.Attachments[0].Filename != "notes.txt" || in.Attachments[0].Text != "notes of the meeting" {
			t.Fatalf("attachments %+v", in.Attachments)
		}
		rd, err := e.ts.S.Blobs.Get(context.Background(), in.Attachments[0].BlobKey)
		if err != nil {
			t.Fatalf("attachment blob: %v", err)
		}
		rd.Close()
		if rs[0].TriggerType != "email_received" || rs[0].Output == nil || !strings.HasPrefix(*rs[0].Output, "got ") {
			t.Errorf("run %+v", rs[0])
		}
		// The agent id address reaches the same agent.
		msg2 := key.Sign(t, message("ada@sender.example", e.agentID+"@agent.localhost", "Second"))
		if err := send(t, e.smtpAddr, "ada@sender.example", e.agentID+"@agent.localhost", msg2); err != nil {
			t.Fatal(err)
		}
		waitRuns(t, e, "completed", 2)
	})
}

// TestMailIsRejected: spoofed, unlisted, machine-written, blocked, flagged
// and misaddressed mail starts no run, and each is listed with its reason.
func TestMailIsRejected(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		e := start(t, d)
		e.dns.AddTXT("sender.example", "v=spf1 ip4:127.0.0.1 -all")
		e.dns.AddTXT("elsewhere.example", "v=spf1 ip4:192.0.2.1 -all")
		to := e.agentID + "@agent.localhost"

		// Unauthenticated: SPF fails for the envelope domain, no DKIM.
		if err := send(t, e.smtpAddr, "eve@elsewhere.example", to, message("eve@elsewhere.example", to, "spoof")); err != nil {
			t.Fatal(err)
		}
		waitRejection(t, e, "unauthorized_sender")
		// Machine-written mail.
		if err := send(t, e.smtpAddr, "ada@sender.example", to, message("ada@sender.example", to, "away", "Auto-Submitted: auto-replied")); err != nil {
			t.Fatal(err)
		}
		waitRejection(t, e, "auto_generated")
		// Spam verdict from an upstream filter.
		if err := send(t, e.smtpAddr, "ada@sender.example", to, message("ada@sender.example", to, "buy", "X-Spam-Flag: YES")); err != nil {
			t.Fatal(err)
		}
		waitRejection(t, e, "spam")
		// Authenticated but not on the allowlist.
		setConfig(t, e, `{"allowed_senders":["boss@sender.example"]}`)
		if err := send(t, e.smtpAddr, "ada@sender.example", to, message("ada@sender.example", to, "hi")); err != nil {
			t.Fatal(err)
		}
		waitRejections(t, e, "unauthorized_sender", 2)
		// Blocked domain (idempotent POST).
		r1 := e.ts.Do(t, "POST", "/agents/blocked-email-senders", e.ts.Key, `{"sender_email":"Sender.example","match_type":"domain","note":"noisy"}`)
		r2 := e.ts.Do(t, "POST", "/agents/blocked-email-senders", e.ts.Key, `{"sender_email":"sender.example","match_type":"domain"}`)
		var b1, b2 struct{ ID, SenderEmail string }
		r1.JSON(t, &b1)
		r2.JSON(t, &b2)
		if r1.Status != 201 || r2.Status != 201 || b1.ID != b2.ID {
			t.Fatalf("block twice: %d %s / %d %s", r1.Status, r1.Body, r2.Status, r2.Body)
		}
		setConfig(t, e, `{"allowed_senders":null}`)
		if err := send(t, e.smtpAddr, "boss@mail.sender.example", to, message("boss@mail.sender.example", to, "blocked")); err != nil {
			t.Fatal(err)
		}
		waitRejection(t, e, "blocked_sender")
		// Unknown alias of a known account: refused at RCPT and recorded.
		err := send(t, e.smtpAddr, "ada@sender.example", "nobody."+e.ts.AccountID+"@agent.localhost", message("a@b.example", "x", "x"))
		if code(err) != 550 {
			t.Fatalf("unknown alias: %v", err)
		}
		waitRejection(t, e, "unknown_alias")
		// A domain nobody here owns: no relaying.
		if err := send(t, e.smtpAddr, "ada@sender.example", "someone@gmail.example", message("a@b.example", "x", "x")); code(err) != 550 {
			t.Fatalf("relay: %v", err)
		}
		// Unblock; the list is empty again.
		if r := e.ts.Do(t, "DELETE", "/agents/blocked-email-senders/"+b1.ID, e.ts.Key, nil); r.Status != 204 {
			t.Fatalf("unblock: %d %s", r.Status, r.Body)
		}
		if r := e.ts.Do(t, "DELETE", "/agents/blocked-email-senders/"+b1.ID, e.ts.Key, nil); r.Status != 404 {
			t.Fatalf("unblock twice: %d", r.Status)
		}
		var list struct {
			Items         []any  `json:"items"`
			Total         int    `json:"total"`
			AutoBlockMode string `json:"auto_block_mode"`
		}
		e.ts.Do(t, "GET", "/agents/blocked-email-senders", e.ts.Key, nil).JSON(t, &list)
		if list.Total != 0 || list.AutoBlockMode != "disabled" {
			t.Fatalf("list %+v", list)
		}
		time.Sleep(300 * time.Millisecond) // let any wrongly accepted message run
		if rs, _, _ := runs.NewRepo(e.ts.DB, nil).RunsOfAgent(context.Background(), e.ts.AccountID, e.agentID, "", 100, 0); len(rs) != 0 {
			t.Fatalf("rejected mail started %d runs: %v", len(rs), rs[0].Metadata)
		}
		var rejs []map[string]any
		e.ts.Do(t, "GET", "/agents/inbound-email-rejections?agent_id="+e.agentID, e.ts.Key, nil).JSON(t, &rejs)
		if len(rejs) < 5 {
			t.Fatalf("rejections %v", rejs)
		}
	})
}

// TestOverQuotaParksAndBreakerPauses: over the hourly quota, mail parks
// runs as queued; past the ceiling the account's inbound pauses; resume
// and cancel-queued act as the contract says.
func TestOverQuotaParksAndBreakerPauses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		e := start(t, d, func(c *server.Config) {
			c.EmailRunsPerHour = 1
			c.InboundQueueCeiling = 2
			c.SMTPMaxMessageBytes = 32 << 10
		})
		setConfig(t, e, `{"require_sender_auth":false,"queue_on_quota":true}`)
		to := e.agentID + "@agent.localhost"
		for i := range 4 {
			if err := send(t, e.smtpAddr, "ada@open.example", to, message("ada@open.example", to, fmt.Sprint("n", i))); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			if i == 0 {
				waitRuns(t, e, "completed", 1)
			}
		}
		waitRuns(t, e, "queued", 3)
		var st struct {
			Paused        bool `json:"paused"`
			QueuedBacklog int  `json:"queued_backlog"`
		}
		// The breaker moves just after the third run is parked.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			e.ts.Do(t, "GET", "/agents/inbound-email-status", e.ts.Key, nil).JSON(t, &st)
			if st.Paused || time.Now().After(deadline) {
				break
			}
		}
		if !st.Paused || st.QueuedBacklog != 3 {
			t.Fatalf("status %+v", st)
		}
		// Paused: turned away with a temporary failure, and recorded.
		if err := send(t, e.smtpAddr, "ada@open.example", to, message("ada@open.example", to, "more")); code(err) != 451 {
			t.Fatalf("paused inbox accepted: %v", err)
		}
		waitRejection(t, e, "inbound_paused")
		// The breaker raised an alert (the account got the type's default
		// configuration), and resuming resolves it.
		pausedAlert := func() (id, status string) {
			var l struct {
				Data []struct {
					ID        string `json:"id"`
					AlertType string `json:"alert_type"`
					Status    string `json:"status"`
				} `json:"data"`
			}
			e.ts.Do(t, "GET", "/alerts?limit=100", e.ts.Key, nil).JSON(t, &l)
			for _, a := range l.Data {
				if a.AlertType == "inbound_email_paused" {
					return a.ID, a.Status
				}
			}
			return "", ""
		}
		// The alert follows the pause's commit by a moment.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			_, st := pausedAlert()
			if st == "triggered" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no inbound_email_paused alert while paused (%q)", st)
			}
		}
		// Too large.
		big := append(message("ada@open.example", to, "big"), strings.Repeat(strings.Repeat("a", 70)+"\r\n", 600)...)
		if r := e.ts.Do(t, "POST", "/agents/inbound-email-status/resume", e.ts.Key, nil); r.Status != 200 || !strings.Contains(string(r.Body), `"resumed":true`) {
			t.Fatalf("resume: %d %s", r.Status, r.Body)
		}
		if _, st := pausedAlert(); st != "resolved" {
			t.Fatalf("inbound_email_paused after resume: %q", st)
		}
		if err := send(t, e.smtpAddr, "ada@open.example", to, big); code(err) != 552 && code(err) != 500 {
			t.Fatalf("oversized message: %v", err)
		}
		r := e.ts.Do(t, "POST", "/agents/inbound-email-status/cancel-queued", e.ts.Key, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"cancelled":3`) {
			t.Fatalf("cancel-queued: %d %s", r.Status, r.Body)
		}
		e.ts.Do(t, "GET", "/agents/inbound-email-status", e.ts.Key, nil).JSON(t, &st)
		if st.Paused || st.QueuedBacklog != 0 {
			t.Fatalf("after cancel %+v", st)
		}
		// Over quota without queue_on_quota: discarded as over_quota.
		setConfig(t, e, `{"queue_on_quota":false}`)
		if err := send(t, e.smtpAddr, "ada@open.example", to, message("ada@open.example", to, "late")); err != nil {
			t.Fatal(err)
		}
		waitRejection(t, e, "over_quota")
	})
}

// TestSTARTTLS: with a certificate configured the listener offers
// STARTTLS and mail arrives over it.
func TestSTARTTLS(t *testing.T) {
	certFile, keyFile := mailtest.SelfSignedFiles(t, "mx.agent.localhost")
	e := start(t, store.SQLite, func(c *server.Config) { c.SMTPTLSCert, c.SMTPTLSKey = certFile, keyFile })
	setConfig(t, e, `{"require_sender_auth":false}`)
	c, err := smtp.Dial(e.smtpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); !ok {
		t.Fatal("STARTTLS not offered")
	}
	if err := c.StartTLS(&tls.Config{InsecureSkipVerify: true}); err != nil {
		t.Fatal(err)
	}
	to := e.agentID + "@agent.localhost"
	if err := c.Mail("ada@open.example"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt(to); err != nil {
		t.Fatal(err)
	}
	w, _ := c.Data()
	w.Write(message("ada@open.example", to, "over tls"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c.Quit()
	waitRuns(t, e, "completed", 1)
}
