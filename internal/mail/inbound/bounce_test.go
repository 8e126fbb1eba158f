package inbound_test

import (
	"bufio"
	"bytes"
	"context"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// dsn builds the notification a receiving server sends back to the
// envelope sender when it refuses a copy it had accepted: multipart/report
// with the status fields and the copy's quoted header.
func dsn(to, finalRecipient, quotedHeader string) []byte {
	return []byte("From: MAILER-DAEMON@mx.example.org\r\nTo: " + to + "\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"Auto-Submitted: auto-replied\r\nMessage-ID: <dsn-1@mx.example.org>\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B1\"\r\n\r\n" +
		"--B1\r\nContent-Type: text/plain\r\n\r\nThe mail system could not deliver your message.\r\n" +
		"--B1\r\nContent-Type: message/delivery-status\r\n\r\n" +
		"Reporting-MTA: dns; mx.example.org\r\nArrival-Date: Mon, 23 Nov 2026 10:00:00 +0000\r\n\r\n" +
		"Final-Recipient: rfc822; " + finalRecipient + "\r\nOriginal-Recipient: rfc822;" + finalRecipient + "\r\nAction: failed\r\n" +
		"Status: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 <" + finalRecipient + ">: Recipient address rejected: mailbox gone\r\n\r\n" +
		"--B1\r\nContent-Type: text/rfc822-headers\r\n\r\n" + quotedHeader + "\r\n--B1--\r\n")
}

// A bounce that arrives after the copy was accepted (sent) is matched to
// the copy by the Message-ID it quotes and recorded on it; it starts no
// run. A report quoting another account's copy changes nothing.
func TestLateBounceRecorded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		sink := mailtest.StartSink(t, "", "")
		e := start(t, d, func(c *server.Config) { c.SMTPRelayURL = "smtp://" + sink.Addr })
		setConfig(t, e, `{"require_sender_auth":false,"ignore_auto_generated":false}`)
		sender := e.ts.StoreAgent(t, e.ts.AccountID, "notifier",
			`{"child_steps":[{"id":"m","step_type":"send_email","to":"gone@example.org","subject":"Weekly report"}]}`, "dynamic_input")
		r := e.ts.Do(t, "POST", "/agents/"+sender+"/runs", e.ts.Key, map[string]any{"input": "the figures"})
		if r.Status != 200 {
			t.Fatalf("run: %d %s", r.Status, r.Body)
		}
		got := sink.Wait(t, 1)
		hdr, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(got[0].Data))).ReadMIMEHeader()
		if err != nil {
			t.Fatal(err)
		}
		msgID := hdr.Get("Message-Id")
		deliveryOf := func() sending.Delivery {
			var ds []sending.Delivery
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var mid string
				if err := e.ts.DB.R.QueryRowContext(context.Background(), `SELECT id FROM mail_messages WHERE agent_id = $1`, sender).Scan(&mid); err == nil {
					ds, _ = e.ts.S.Mail.Deliveries(context.Background(), e.ts.AccountID, mid)
				}
				if len(ds) == 1 && ds[0].Status != sending.DeliveryQueued || time.Now().After(deadline) {
					break
				}
			}
			if len(ds) != 1 {
				t.Fatalf("deliveries %+v", ds)
			}
			return ds[0]
		}
		if dl := deliveryOf(); dl.Status != sending.DeliverySent || !strings.Contains(msgID, dl.ID) {
			t.Fatalf("copy %+v, Message-ID %s", dl, msgID)
		}
		quoted := "From: " + got[0].From + "\r\nTo: gone@example.org\r\nSubject: Weekly report\r\nMessage-ID: " + msgID + "\r\n"

		// Another account's agent receives a report quoting this copy: not
		// its copy, so nothing is recorded (it goes to that agent's checks).
		other := e.ts.NewTenant(t, "other")
		otherAgent := e.ts.StoreAgent(t, other.AccountID, "other inbox", echoDef, "email_received")
		tr, _ := agents.NewRepo(e.ts.DB).AgentTrigger(context.Background(), other.AccountID, otherAgent)
		anySender := false
		if _, err := e.ts.S.MailInbound.SetTriggerConfig(context.Background(), other.AccountID, otherAgent, tr.ID, inbound.ConfigPatch{RequireSenderAuth: &anySender}); err != nil {
			t.Fatal(err)
		}
		if err := send(t, e.smtpAddr, "", otherAgent+"@agent.localhost", dsn(otherAgent+"@agent.localhost", "gone@example.org", quoted)); err != nil {
			t.Fatal(err)
		}
		// The report for the sending agent's address is recorded.
		to := got[0].From
		if err := send(t, e.smtpAddr, "", to, dsn(to, "gone@example.org", quoted)); err != nil {
			t.Fatal(err)
		}
		var dl sending.Delivery
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if dl = deliveryOf(); dl.Status == sending.DeliveryBounced || time.Now().After(deadline) {
				break
			}
		}
		if dl.Status != sending.DeliveryBounced || dl.SMTPCode != 550 || !strings.Contains(dl.LastError, "5.1.1") ||
			!strings.Contains(dl.LastError, "mailbox gone") {
			t.Fatalf("after the late bounce: %+v", dl)
		}
		// It started no run of the sender (which has no email trigger). The
		// other account's agent treated its copy as ordinary mail: an
		// automatic reply, which its default settings discard.
		rs, _, _ := runs.NewRepo(e.ts.DB, nil).RunsOfAgent(context.Background(), e.ts.AccountID, sender, "", 100, 0)
		if len(rs) != 1 {
			t.Fatalf("sender has %d runs", len(rs))
		}
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			rejs, err := e.ts.S.MailProtect.Rejections(context.Background(), other.AccountID, otherAgent, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(rejs) == 1 && rejs[0].Reason == "auto_generated" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the other account's rejections: %+v", rejs)
			}
		}
	})
}
