package isolation

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/testserver"
)

// Mail, outbound side: B neither sees nor changes A's email domains, their
// DMARC summaries, A's primary domain or A's recipients' opt-outs; an
// unsubscribe token altered to name another account is refused.

// edDomainOfA gives A a custom domain (verified when verified is true, then
// made primary) and answers its id.
func edDomainOfA(verified bool) func(t *testing.T, c *Ctx) Vars {
	return func(t *testing.T, c *Ctx) Vars {
		t.Helper()
		ctx := context.Background()
		name := "agent-" + strings.ReplaceAll(c.A.AccountID[24:], "-", "") + ".a-corp.test"
		d, err := c.S.EmailDomains.Add(ctx, c.A.AccountID, "custom", name, false)
		if err != nil {
			t.Fatal(err)
		}
		if verified {
			if _, err := c.S.EmailDomains.MarkVerified(ctx, c.A.AccountID, d.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := c.S.EmailDomains.SetPrimary(ctx, c.A.AccountID, d.ID); err != nil {
				t.Fatal(err)
			}
		}
		return Vars{"domain_id": d.ID, "domain": name}
	}
}

// edUnchanged checks, after B's 404, that A still has its one domain.
func edUnchanged(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	ds, err := c.S.EmailDomains.List(context.Background(), c.A.AccountID)
	if err != nil || len(ds) != 1 || ds[0].ID != c.Vars["domain_id"] {
		t.Errorf("B's attempt changed A's domains: %+v %v", ds, err)
	}
}

func edPrimaryKept(t testing.TB, c *Ctx, _ testserver.Response) {
	t.Helper()
	d, err := c.S.EmailDomains.Get(context.Background(), c.A.AccountID, c.Vars["domain_id"])
	if err != nil || !d.IsPrimary {
		t.Errorf("A's primary domain changed: %v", err)
	}
}

// ooOfA records an opt-out of A's.
func ooOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	o, err := c.S.Mail.AddOptOut(context.Background(), sending.OptOut{AccountID: c.A.AccountID, RecipientEmail: "reader@a-corp.test", Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"optout_id": o.ID}
}

func ooKept(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	if _, n, err := c.S.Mail.OptOuts(context.Background(), c.A.AccountID, "", 10, 0); err != nil || n != 1 {
		t.Errorf("A's opt-outs: %d %v", n, err)
	}
}

// forgedToken is a genuine unsubscribe token of A's recipient whose
// payload was rewritten to name B's account (the signature left as it was).
func forgedToken(t *testing.T, c *Ctx) Vars {
	t.Helper()
	link := c.S.Mail.UnsubscribeURL(sending.Unsubscribe{AccountID: c.A.AccountID, Recipient: "reader@a-corp.test"})
	u, _ := url.Parse(link)
	payload, sig, _ := strings.Cut(u.Query().Get("token"), ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	json.Unmarshal(raw, &m)
	m["a"] = c.B.AccountID
	raw, _ = json.Marshal(m)
	return Vars{"token": url.QueryEscape(base64.RawURLEncoding.EncodeToString(raw) + "." + sig)}
}

func noOptOuts(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	if r.Status != http.StatusBadRequest {
		t.Errorf("forged token: %d %s", r.Status, r.Body)
	}
	for _, acct := range []string{c.A.AccountID, c.B.AccountID} {
		if _, n, _ := c.S.Mail.OptOuts(context.Background(), acct, "", 10, 0); n != 0 {
			t.Errorf("a forged token recorded an opt-out")
		}
	}
}

func init() {
	register(
		Case{Op: "GET /email-domains", Name: "B does not list A's domains", Setup: edDomainOfA(false),
			Expect: Status(http.StatusOK, EmptyList("domains")), Control: Status(http.StatusOK, NonEmptyList("domains"))},
		Case{Op: "POST /email-domains", Name: "B's claim of A's custom domain is B's own", Setup: edDomainOfA(false),
			Body: func(v Vars) any { return map[string]any{"kind": "custom", "value": v["domain"]} },
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				var d struct {
					ID string `json:"id"`
				}
				r.JSON(t, &d)
				if d.ID == c.Vars["domain_id"] {
					t.Error("B got A's domain")
				}
				ds, _ := c.S.EmailDomains.List(context.Background(), c.A.AccountID)
				if len(ds) != 1 || ds[0].ID != c.Vars["domain_id"] {
					t.Errorf("A's domains changed: %+v", ds)
				}
			}), NoControl: true},
		Case{Op: "POST /email-domains/use-shared-domain", Name: "B clearing its primary leaves A's", Setup: edDomainOfA(true),
			Expect: Status(http.StatusNoContent, edPrimaryKept), NoControl: true},
		Case{Op: "DELETE /email-domains/{domain_id}", Name: "B removes A's domain", Setup: edDomainOfA(false), Expect: edUnchanged},
		Case{Op: "GET /email-domains/{domain_id}/dmarc", Name: "B reads A's DMARC summary", Setup: edDomainOfA(true), Expect: NotFound()},
		Case{Op: "POST /email-domains/{domain_id}/primary", Name: "B makes A's verified domain its primary", Setup: edDomainOfA(true),
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				edUnchanged(t, c, r)
				if _, ok, err := c.S.EmailDomains.PrimaryDomain(context.Background(), c.B.AccountID); err != nil || ok {
					t.Error("B has a primary domain")
				}
			}},
		Case{Op: "POST /email-domains/{domain_id}/test-email", Name: "B sends a test message from A's domain", Setup: edDomainOfA(true),
			Expect: NotFound(), Control: Status(http.StatusConflict)}, // A's owner has no address: the domain exists
		Case{Op: "POST /email-domains/{domain_id}/verify", Name: "B checks A's domain", Setup: edDomainOfA(false), Expect: edUnchanged},
		Case{Op: "GET /agents/agent-email-optouts", Name: "B does not list A's opt-outs", Setup: ooOfA,
			Expect: Status(http.StatusOK, EmptyList("items")), Control: Status(http.StatusOK, NonEmptyList("items"))},
		Case{Op: "DELETE /agents/agent-email-optouts/{optout_id}", Name: "B revokes A's opt-out", Setup: ooOfA, Expect: ooKept,
			Control: Status(http.StatusNoContent)},
		Case{Op: "GET /email/unsubscribe", Name: "a token altered to name B's account", Setup: forgedToken,
			Path: "/email/unsubscribe?token={token}", Expect: noOptOuts, NoControl: true},
		Case{Op: "POST /email/unsubscribe", Name: "a token altered to name B's account", Setup: forgedToken,
			Path: "/email/unsubscribe?token={token}", Expect: noOptOuts, NoControl: true},
	)
}
