package inbound_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// With auto_block_mode=input_and_output, a governance block on the
// agent's output in a run an authenticated sender's e-mail started adds
// that sender to the blocklist; with mode input, or for a sender that did
// not authenticate, it does not. Their next message is then discarded.
func TestAutoBlockOnOutput(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		e := start(t, d)
		e.dns.AddTXT("sender.example", "v=spf1 ip4:127.0.0.1 -all")
		e.dns.AddTXT("_dmarc.sender.example", "v=DMARC1; p=reject")
		key := e.dns.PublishDKIM(t, "sender.example", "s1")
		setConfig(t, e, `{"require_sender_auth":false}`)
		// Output only: the inbound input check passes the message, the
		// agent's echo of it is blocked.
		if r := e.ts.Do(t, "POST", "/governance/policies", e.ts.Key, map[string]any{"name": "No Falcon", "config": map[string]any{
			"action": "block", "stages": []string{"output"}, "rules": []any{map[string]any{"type": "blocked_terms", "terms": []string{"project falcon"}}}}}); r.Status != 201 {
			t.Fatalf("policy: %d %s", r.Status, r.Body)
		}
		blocked := func() []string {
			l, err := e.ts.S.MailProtect.Blocked(context.Background(), e.ts.AccountID, 100, 0)
			bs := l.Items
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, b := range bs {
				out = append(out, b.SenderEmail+"/"+b.Source)
			}
			return out
		}
		to := e.agentID + "@agent.localhost"
		mode := func(m string) {
			if r := e.ts.Do(t, "PUT", "/agents/blocked-email-senders/mode", e.ts.Key, map[string]any{"mode": m}); r.Status != 200 {
				t.Fatalf("mode: %d %s", r.Status, r.Body)
			}
		}

		// Mode input: the output block fails the run, nobody is blocked.
		mode("input")
		if err := send(t, e.smtpAddr, "ada@sender.example", to, key.Sign(t, message("ada@sender.example", to, "About Project Falcon"))); err != nil {
			t.Fatal(err)
		}
		waitRuns(t, e, "failed", 1)
		if b := blocked(); len(b) != 0 {
			t.Fatalf("mode input blocked %v", b)
		}

		// input_and_output, unauthenticated sender (SPF fails, no DKIM): not blocked.
		mode("input_and_output")
		e.dns.AddTXT("forger.example", "v=spf1 ip4:192.0.2.1 -all")
		if err := send(t, e.smtpAddr, "eve@forger.example", to, message("eve@forger.example", to, "About Project Falcon")); err != nil {
			t.Fatal(err)
		}
		waitRuns(t, e, "failed", 2)
		if b := blocked(); len(b) != 0 {
			t.Fatalf("an unauthenticated sender was blocked: %v", b)
		}

		// input_and_output, authenticated sender: blocked by governance.
		if err := send(t, e.smtpAddr, "ada@sender.example", to, key.Sign(t, message("ada@sender.example", to, "Project Falcon again"))); err != nil {
			t.Fatal(err)
		}
		waitRuns(t, e, "failed", 3)
		var b []string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if b = blocked(); len(b) > 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(b) != 1 || b[0] != "ada@sender.example/governance" {
			t.Fatalf("blocklist %v", b)
		}
		// Their next message is discarded as from a blocked sender.
		if err := send(t, e.smtpAddr, "ada@sender.example", to, key.Sign(t, message("ada@sender.example", to, "Harmless"))); err != nil {
			t.Fatal(err)
		}
		waitRejection(t, e, "blocked_sender")
	})
}
