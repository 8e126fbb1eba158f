package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/mail/resolver"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-msgauth/dkim"
)

// mailServer starts a server whose mail goes through an SMTP sink acting as
// the relay (AUTH required) and whose DNS is a server on loopback, with the
// shared domain's DKIM record published there.
func mailServer(t *testing.T, d store.Dialect, opts ...func(*server.Config)) (*testserver.Server, *mailtest.Sink, *mailtest.DNS) {
	t.Helper()
	dnsSrv := mailtest.StartDNS(t)
	sink := mailtest.StartSink(t, "relayuser", "relaypass")
	s := testserver.Start(t, d, append([]func(*server.Config){func(c *server.Config) {
		c.MailDomain = "agent.test"
		c.MailMXHost = "mx.agent.test"
		c.SMTPRelayURL = "smtp://relayuser:relaypass@" + sink.Addr
		c.DNSResolver = dnsSrv.Addr
	}}, opts...)...)
	name, value, err := s.S.EmailDomains.SharedDKIMRecord()
	if err != nil {
		t.Fatal(err)
	}
	dnsSrv.AddTXT(name, value)
	return s, sink, dnsSrv
}

// verifyDKIM checks a received message's signature against the key
// published on the loopback DNS server, and answers the signing domain.
func verifyDKIM(t *testing.T, dnsAddr string, raw []byte) string {
	t.Helper()
	res := resolver.New(dnsAddr)
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		return res.LookupTXT(context.Background(), name)
	}})
	if err != nil || len(vs) != 1 || vs[0].Err != nil {
		t.Fatalf("dkim: %v %+v\n%s", err, vs, raw)
	}
	return vs[0].Domain
}

func header(t *testing.T, raw []byte) mail.Header {
	t.Helper()
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return r.Header
}

// queuedEvent finds a run's email_queued event.
func queuedEvent(t *testing.T, s *testserver.Server, accountID, runID string) map[string]any {
	t.Helper()
	evs, err := s.S.Bus.Read(context.Background(), accountID, runID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Type == "email_queued" {
			var m map[string]any
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("run %s has no email_queued event", runID)
	return nil
}

func waitDeliveries(t *testing.T, s *testserver.Server, accountID, messageID string, want map[string]string) []sending.Delivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ds, err := s.S.Mail.Deliveries(context.Background(), accountID, messageID)
		if err != nil {
			t.Fatal(err)
		}
		ok := len(ds) == len(want)
		for _, d := range ds {
			ok = ok && want[d.Recipient] == d.Status
		}
		if ok {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries %+v, want %v", ds, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const sendDef = `{"child_steps":[{"id":"mail","step_type":"send_email","to":"reader@example.test","cc":["bounce@example.test"],
	"subject":"Report on {{input}}","body":"Hello, here is {{input}}."}]}`

// The send_email step queues one DKIM-signed copy per recipient; the relay
// (a real SMTP server on loopback, with AUTH) receives it, its signature
// verifies against the key in DNS, a 550 is recorded as a bounce, and the
// one-click unsubscribe link opts the recipient out of the next run.
func TestSendEmailStep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s, sink, dnsSrv := mailServer(t, d)
		agent := s.StoreAgent(t, s.AccountID, "Weekly reporter", sendDef, "dynamic_input")
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "sales"})
		wantStatus(t, r, http.StatusOK)
		var start struct {
			RunID string `json:"run_id"`
		}
		r.JSON(t, &start)
		done := waitRun(t, s, s.Key, start.RunID)
		if done.Status != "completed" || done.Output == nil || *done.Output != "sales" {
			t.Fatalf("run: %+v", done)
		}
		ev := queuedEvent(t, s, s.AccountID, start.RunID)
		if fmt.Sprint(ev["queued"]) != "[reader@example.test bounce@example.test]" || fmt.Sprint(ev["skipped_opted_out"]) != "[]" ||
			ev["from"] != agent+"@agent.test" {
			t.Fatalf("event: %v", ev)
		}
		msgs := sink.Wait(t, 1)
		m := msgs[0]
		if m.From != agent+"@agent.test" || len(m.To) != 1 || m.To[0] != "reader@example.test" {
			t.Fatalf("envelope: %+v", m)
		}
		if dom := verifyDKIM(t, dnsSrv.Addr, m.Data); dom != "agent.test" {
			t.Errorf("signed by %s", dom)
		}
		h := header(t, m.Data)
		subj, _ := h.Subject()
		from, _ := h.AddressList("From")
		cc, _ := h.AddressList("Cc")
		if subj != "Report on sales" || len(from) != 1 || from[0].Name != "Weekly reporter" || len(cc) != 1 ||
			h.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.Contains(string(m.Data), "Hello, here is sales.") {
			t.Errorf("message:\n%s", m.Data)
		}
		waitDeliveries(t, s, s.AccountID, ev["message_id"].(string), map[string]string{"reader@example.test": "sent", "bounce@example.test": "bounced"})

		// The unsubscribe link: a page on GET, the opt-out on POST.
		link := strings.Trim(h.Get("List-Unsubscribe"), "<>")
		if !strings.HasPrefix(link, s.URL+"/email/unsubscribe?token=") {
			t.Fatalf("List-Unsubscribe %q", link)
		}
		resp, err := http.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "reader@example.test") {
			t.Fatalf("page: %d %s", resp.StatusCode, body)
		}
		u, _ := url.Parse(link)
		tok := u.Query().Get("token")
		flip := map[bool]string{true: "f", false: "e"}[tok[0] == 'e']
		tampered := flip + tok[1:] // another account id in the payload
		if r := s.Do(t, "POST", "/email/unsubscribe?token="+url.QueryEscape(tampered), "", nil); r.Status != http.StatusBadRequest {
			t.Errorf("tampered token: %d %s", r.Status, r.Body)
		}
		resp, err = http.Post(link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("one-click: %d", resp.StatusCode)
		}

		r = s.Do(t, "GET", "/agents/agent-email-optouts?agent_id="+agent, s.Key, nil)
		var list api.AgentEmailOptOutListResponse
		r.JSON(t, &list)
		if r.Status != 200 || list.Total != 1 || list.Items[0].RecipientEmail != "reader@example.test" ||
			*list.Items[0].AgentID != agent || *list.Items[0].AgentName != "Weekly reporter" {
			t.Fatalf("opt-outs: %d %s", r.Status, r.Body)
		}

		// The next run skips the recipient and says so.
		r = s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "q2"})
		r.JSON(t, &start)
		if done := waitRun(t, s, s.Key, start.RunID); done.Status != "completed" {
			t.Fatalf("second run: %+v", done)
		}
		ev = queuedEvent(t, s, s.AccountID, start.RunID)
		if fmt.Sprint(ev["skipped_opted_out"]) != "[reader@example.test]" || fmt.Sprint(ev["queued"]) != "[bounce@example.test]" {
			t.Fatalf("second event: %v", ev)
		}

		// Another account neither sees nor revokes it; the owner does.
		other := s.NewTenant(t, "other")
		r = s.Do(t, "GET", "/agents/agent-email-optouts", other.Key, nil)
		r.JSON(t, &list)
		if list.Total != 0 {
			t.Errorf("another account sees %d opt-outs", list.Total)
		}
		id := "" // the owner's list
		r = s.Do(t, "GET", "/agents/agent-email-optouts", s.Key, nil, "Service-Version: 2026-07-27")
		var env struct {
			Data       []api.AgentEmailOptOutResponse `json:"data"`
			Pagination api.Pagination                 `json:"pagination"`
		}
		r.JSON(t, &env)
		if len(env.Data) != 1 || env.Pagination.Total != 1 {
			t.Fatalf("envelope: %s", r.Body)
		}
		id = env.Data[0].ID
		wantStatus(t, s.Do(t, "DELETE", "/agents/agent-email-optouts/"+id, other.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "DELETE", "/agents/agent-email-optouts/"+id, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "DELETE", "/agents/agent-email-optouts/"+id, s.Key, nil), http.StatusNotFound)
	})
}

// Bad recipients and oversized fields fail the step with a clear error.
func TestSendEmailStepRefusals(t *testing.T) {
	t.Parallel()
	s, _, _ := mailServer(t, store.SQLite)
	many := make([]string, 60)
	for i := range many {
		many[i] = fmt.Sprintf("r%d@example.test", i)
	}
	manyJSON, _ := json.Marshal(many)
	for name, def := range map[string]string{
		"bad address":     `{"child_steps":[{"id":"m","step_type":"send_email","to":"{{input}}","subject":"x"}]}`,
		"header injected": `{"child_steps":[{"id":"m","step_type":"send_email","to":"a@example.test\r\nBcc: evil@example.test","subject":"x"}]}`,
		"too many":        `{"child_steps":[{"id":"m","step_type":"send_email","to":` + string(manyJSON) + `,"subject":"x"}]}`,
		"long subject":    `{"child_steps":[{"id":"m","step_type":"send_email","to":"a@example.test","subject":"` + strings.Repeat("s", 1200) + `"}]}`,
	} {
		agent := s.StoreAgent(t, s.AccountID, name, def, "dynamic_input")
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "not an address"})
		var start struct {
			RunID string `json:"run_id"`
		}
		r.JSON(t, &start)
		if done := waitRun(t, s, s.Key, start.RunID); done.Status != "failed" {
			t.Errorf("%s: run %s", name, done.Status)
		}
	}
}

// dmarcReport is a MIME message carrying a gzip'd aggregate report for domain.
func dmarcReport(t *testing.T, domain, reportID string) []byte {
	t.Helper()
	now := time.Now().Unix()
	xml := fmt.Sprintf(`<?xml version="1.0"?><feedback><report_metadata><org_name>receiver.test</org_name><report_id>%s</report_id>
<date_range><begin>%d</begin><end>%d</end></date_range></report_metadata><policy_published><domain>%s</domain></policy_published>
<record><row><source_ip>192.0.2.10</source_ip><count>8</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>%s</header_from></identifiers></record>
<record><row><source_ip>203.0.113.7</source_ip><count>2</count><policy_evaluated><disposition>quarantine</disposition><dkim>fail</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>%s</header_from></identifiers></record>
</feedback>`, reportID, now-86400, now, domain, domain, domain)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(xml))
	zw.Close()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	pw, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain"}})
	pw.Write([]byte("DMARC aggregate report"))
	pw, _ = mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/gzip"}, "Content-Transfer-Encoding": {"base64"},
		"Content-Disposition": {`attachment; filename="receiver.test!` + domain + `!1!2.xml.gz"`}})
	enc := make([]byte, 0)
	enc = append(enc, []byte(b64(gz.Bytes()))...)
	pw.Write(enc)
	mw.Close()
	return []byte("From: noreply-dmarc@receiver.test\r\nTo: dmarc-reports@" + domain + "\r\nSubject: Report domain: " + domain +
		"\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=" + mw.Boundary() + "\r\n\r\n" + body.String())
}

// A temporary refusal (451) is retried by the delivery job with backoff
// until the relay takes the message.
func TestSendEmailRetries(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s, sink, _ := mailServer(t, d)
		sink.SetTempFailures(1)
		agent := s.StoreAgent(t, s.AccountID, "retrier", `{"child_steps":[{"id":"m","step_type":"send_email","to":"tempfail@example.test","subject":"x"}]}`, "dynamic_input")
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x"})
		var start struct {
			RunID string `json:"run_id"`
		}
		r.JSON(t, &start)
		waitRun(t, s, s.Key, start.RunID)
		ev := queuedEvent(t, s, s.AccountID, start.RunID)
		ds := waitDeliveries(t, s, s.AccountID, ev["message_id"].(string), map[string]string{"tempfail@example.test": "sent"})
		if ds[0].Attempts != 2 || len(sink.Messages()) != 1 {
			t.Fatalf("deliveries: %+v, sink %d", ds, len(sink.Messages()))
		}
	})
}

// A send_email step that runs again (a crash after it queued, a resume)
// finds its message and queues nothing twice.
func TestSendEmailIsIdempotentPerStep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s, sink, _ := mailServer(t, d)
		m := sending.Mail{AccountID: s.AccountID, AgentID: "01a20000-0000-7000-8000-000000000009", RunID: store.NewID(), StepKey: "mail",
			To: []string{"once@example.test"}, Subject: "once", Body: "b", AgentMail: true}
		first, err := s.S.Mail.Send(context.Background(), m)
		if err != nil || first.Resumed {
			t.Fatal(first, err)
		}
		again, err := s.S.Mail.Send(context.Background(), m)
		if err != nil || !again.Resumed || again.MessageID != first.MessageID || fmt.Sprint(again.Queued) != "[once@example.test]" {
			t.Fatalf("again: %+v %v", again, err)
		}
		sink.Wait(t, 1)
		time.Sleep(300 * time.Millisecond)
		if n := len(sink.Messages()); n != 1 {
			t.Fatalf("%d messages", n)
		}
	})
}
