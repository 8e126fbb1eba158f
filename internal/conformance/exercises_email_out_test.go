package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

// Mail, outbound side: email domains and agent-email opt-outs.

// emailDomain is a Setup giving the exercise's account a custom domain,
// verified (and made primary) when verified is true.
func emailDomain(verified bool) func(t *testing.T, e *Env) Vars {
	return func(t *testing.T, e *Env) Vars {
		t.Helper()
		ctx := context.Background()
		name := "agent-" + strings.ReplaceAll(e.Tenant.AccountID[24:], "-", "") + ".conformance.test"
		d, err := e.S.EmailDomains.Add(ctx, e.Tenant.AccountID, "custom", name, false)
		if err != nil {
			t.Fatal(err)
		}
		if verified {
			if _, err := e.S.EmailDomains.MarkVerified(ctx, e.Tenant.AccountID, d.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := e.S.EmailDomains.SetPrimary(ctx, e.Tenant.AccountID, d.ID); err != nil {
				t.Fatal(err)
			}
		}
		return Vars{"domain_id": d.ID}
	}
}

// ownerAddress gives the exercise account's owner an e-mail address, where
// test messages go.
func ownerAddress(setup func(t *testing.T, e *Env) Vars) func(t *testing.T, e *Env) Vars {
	return func(t *testing.T, e *Env) Vars {
		t.Helper()
		if _, err := e.DB.W.ExecContext(context.Background(), `UPDATE users SET email = $1 WHERE id = $2`,
			"owner-"+e.Tenant.UserID+"@conformance.test", e.Tenant.UserID); err != nil {
			t.Fatal(err)
		}
		return setup(t, e)
	}
}

func optOut(t *testing.T, e *Env) Vars {
	t.Helper()
	o, err := e.S.Mail.AddOptOut(context.Background(), sending.OptOut{AccountID: e.Tenant.AccountID, RecipientEmail: "reader@conformance.test", Reason: "one_click_unsubscribe"})
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"optout_id": o.ID}
}

func wantBodyHas(s string) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, e *Env, r testserver.Response) {
		t.Helper()
		if !strings.Contains(string(r.Body), s) {
			t.Errorf("body lacks %q: %s", s, r.Body)
		}
	}
}

func init() {
	register(
		Exercise{Op: "GET /agents/agent-email-optouts", Name: "an opt-out", Status: http.StatusOK, Setup: optOut,
			Check: wantBodyHas("reader@conformance.test")},
		Exercise{Op: "GET /agents/agent-email-optouts", Name: "filtered to an agent", Status: http.StatusOK, Setup: optOut,
			Path: "/agents/agent-email-optouts?agent_id=01a20000-0000-7000-8000-000000000000&limit=10&offset=0"},
		Exercise{Op: "GET /agents/agent-email-optouts", Name: "limit out of range", Status: http.StatusUnprocessableEntity,
			Path: "/agents/agent-email-optouts?limit=500", Check: expectLoc("query", "limit")},
		Exercise{Op: "DELETE /agents/agent-email-optouts/{optout_id}", Name: "revoke", Status: http.StatusNoContent, Setup: optOut},
		Exercise{Op: "DELETE /agents/agent-email-optouts/{optout_id}", Name: "not an id", Status: http.StatusUnprocessableEntity,
			Path: "/agents/agent-email-optouts/nope"},
		Exercise{Op: "DELETE /agents/agent-email-optouts/{optout_id}", Name: "unknown", Status: http.StatusNotFound,
			Path: "/agents/agent-email-optouts/01a20000-0000-7000-8000-000000000000"},

		Exercise{Op: "GET /email-domains", Name: "empty", Status: http.StatusOK, Check: wantBodyHas(`"can_add_custom":true`)},
		Exercise{Op: "GET /email-domains", Name: "with a domain", Status: http.StatusOK, Setup: emailDomain(true), Check: wantBodyHas(`"has_custom":true`)},
		Exercise{Op: "POST /email-domains", Name: "custom", Status: http.StatusOK,
			Body: map[string]any{"kind": "custom", "value": "agent.conformance-add.test"}, Check: wantBodyHas(`"status":"pending"`)},
		Exercise{Op: "POST /email-domains", Name: "vanity", Status: http.StatusOK,
			Body: func(Vars) any { return map[string]any{"kind": "vanity", "value": "c" + store.NewID()[24:]} }},
		Exercise{Op: "POST /email-domains", Name: "not a domain", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"kind": "custom", "value": "no spaces.test"}, Check: expectLoc("body", "value")},
		Exercise{Op: "POST /email-domains", Name: "delegated without an update server", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"kind": "custom", "value": "agent.deleg.test", "delegated": true}, Check: expectLoc("body", "delegated")},
		Exercise{Op: "POST /email-domains", Name: "member", As: Member, Status: http.StatusForbidden,
			Body: map[string]any{"kind": "custom", "value": "agent.member.test"}},
		Exercise{Op: "POST /email-domains/use-shared-domain", Name: "back to shared", Status: http.StatusNoContent, Setup: emailDomain(true)},
		Exercise{Op: "DELETE /email-domains/{domain_id}", Name: "remove", Status: http.StatusOK, Setup: emailDomain(false),
			Check: wantBodyHas(`"removed":true`)},
		Exercise{Op: "DELETE /email-domains/{domain_id}", Name: "not an id", Status: http.StatusUnprocessableEntity, Path: "/email-domains/x"},
		Exercise{Op: "GET /email-domains/{domain_id}/dmarc", Name: "no reports", Status: http.StatusOK, Setup: emailDomain(true),
			Path: "/email-domains/{domain_id}/dmarc?days=7&top_sources=5", Check: wantBodyHas(`"window_days":7`)},
		Exercise{Op: "GET /email-domains/{domain_id}/dmarc", Name: "days not a number", Status: http.StatusUnprocessableEntity,
			Setup: emailDomain(true), Path: "/email-domains/{domain_id}/dmarc?days=week", Check: expectLoc("query", "days")},
		Exercise{Op: "POST /email-domains/{domain_id}/primary", Name: "verified", Status: http.StatusOK, Setup: emailDomain(true),
			Check: wantBodyHas(`"is_primary":true`)},
		Exercise{Op: "POST /email-domains/{domain_id}/primary", Name: "pending", Status: http.StatusConflict, Setup: emailDomain(false)},
		Exercise{Op: "POST /email-domains/{domain_id}/primary", Name: "not an id", Status: http.StatusUnprocessableEntity, Path: "/email-domains/x/primary"},
		Exercise{Op: "POST /email-domains/{domain_id}/test-email", Name: "to the owner", Status: http.StatusOK,
			Setup: ownerAddress(emailDomain(true)), Check: wantBodyHas(`"sent":true`)},
		Exercise{Op: "POST /email-domains/{domain_id}/test-email", Name: "not an id", Status: http.StatusUnprocessableEntity, Path: "/email-domains/x/test-email"},
		Exercise{Op: "POST /email-domains/{domain_id}/verify", Name: "check now", Status: http.StatusOK, Setup: emailDomain(false),
			Check: wantBodyHas(`"status":"pending"`)},
		Exercise{Op: "POST /email-domains/{domain_id}/verify", Name: "not an id", Status: http.StatusUnprocessableEntity, Path: "/email-domains/x/verify"},
	)
}
