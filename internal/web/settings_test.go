package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

var newKeySecret = regexp.MustCompile(`<pre id="new-key-secret">([^<]+)</pre>`)

func TestSettingsPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		owner, memberKey := mailOwner(t, srv, "boss@acme.test")
		if _, err := billing.NewCredits(srv.DB).Charge(ctx, owner.AccountID, 40, "prompt_call test-model", "usage:x"); err != nil {
			t.Fatal(err)
		}
		agent := srv.StoreAgent(t, owner.AccountID, "Helper", showDef, "dynamic_input")
		b := newBrowser(t, srv)
		b.signInWithKey(owner.Key)

		p := b.get("/console/settings")
		p.mustContain(t, "API keys", "Members", "Boss", "Member", "Account secrets", "Credits", "60", "prompt_call test-model",
			`class="bar"`, "API version", "Agents as MCP tools", `href="/console/account"`, `action="/console/settings/members/`)

		// A new key: shown on the create action's answer only.
		p = b.post("/console/settings/api-keys", url.Values{"name": {"ci"}, "role": {"member"}})
		m := newKeySecret.FindStringSubmatch(p.Body)
		if p.Status != http.StatusCreated || m == nil {
			t.Fatalf("create key: %d\n%s", p.Status, p.Body)
		}
		secret := m[1]
		if strings.Contains(p.URL, secret) || strings.Contains(strings.Join(p.Header.Values("Set-Cookie"), ";"), secret) {
			t.Fatal("the new key is in the URL or a cookie")
		}
		if r := srv.Do(t, "GET", "/me", secret, nil); r.Status != http.StatusOK {
			t.Fatalf("the new key does not work: %d", r.Status)
		}
		p = b.get("/console/settings")
		if strings.Contains(p.Body, secret) || strings.Contains(p.Body, "new-key-secret") {
			t.Fatal("the new key is shown again")
		}
		p.mustContain(t, ">ci<")
		// Its id from the list; revoking it makes the API refuse it.
		keyID := regexp.MustCompile(`<tr data-key="([0-9a-f-]{36})">\s*<td>ci</td>`).FindStringSubmatch(p.Body)
		if keyID == nil {
			t.Fatalf("no row of the new key:\n%s", p.Body)
		}
		p = b.post("/console/settings/api-keys/"+keyID[1]+"/revoke", nil)
		p.mustContain(t, "Key revoked", "revoked")
		// Every server refuses a revoked key within 2 seconds (its cache).
		deadline := time.Now().Add(5 * time.Second)
		for srv.Do(t, "GET", "/me", secret, nil).Status != http.StatusUnauthorized {
			if time.Now().After(deadline) {
				t.Fatal("the revoked key still works")
			}
			time.Sleep(100 * time.Millisecond)
		}
		// The API's validation beside the form.
		if p = b.post("/console/settings/api-keys", url.Values{"name": {""}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("nameless key: %d", p.Status)
		}

		// Secrets: stored, listed by name; the value never shown.
		b.get("/console/settings")
		p = b.post("/console/settings/secrets", url.Values{"name": {"S3_KEY"}, "value": {"hunter2-value"}, "hosts": {"s3.example.com"}})
		p.mustContain(t, "Secret saved", "S3_KEY", "s3.example.com")
		if strings.Contains(p.Body, "hunter2-value") {
			t.Fatal("the secret's value is on the page")
		}
		p = b.post("/console/settings/secrets", url.Values{"name": {"bad name"}, "value": {"x"}, "hosts": {"a.example"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad secret name: %d", p.Status)
		}

		// The version pin.
		b.get("/console/settings")
		p = b.post("/console/settings/version", url.Values{"version": {"2026-07-27"}})
		p.mustContain(t, "API version pinned", "<dt>Pinned</dt><dd><code>2026-07-27</code>")
		p = b.post("/console/settings/version", url.Values{"version": {""}})
		p.mustContain(t, "pin cleared", "not pinned")

		// MCP tools.
		p = b.post("/console/settings/mcp-tools", url.Values{"agent_id": {agent}, "enabled": {"on"}, "tool_name": {"helper_tool"}})
		p.mustContain(t, "is an MCP tool", "helper_tool", `data-tool="`+agent+`"`)
		p = b.post("/console/settings/mcp-tools", url.Values{"agent_id": {agent}})
		p.mustContain(t, "no longer an MCP tool", "No agent is a tool")

		// A member: only their own keys, no role controls, and the API
		// refuses their role change (403, the error page).
		mb := newBrowser(t, srv)
		mb.signInWithKey(memberKey)
		p = mb.get("/console/settings")
		p.mustContain(t, "You see your own keys only.", "Boss")
		if strings.Contains(p.Body, ">ci<") || strings.Contains(p.Body, `action="/console/settings/members/`) || strings.Contains(p.Body, `action="/console/settings/secrets"`) {
			t.Fatalf("a member sees others' keys or the controls:\n%s", p.Body)
		}
		p = mb.post("/console/settings/members/"+owner.UserID+"/role", url.Values{"role": {"member"}})
		if p.Status != http.StatusForbidden {
			t.Fatalf("member changes a role: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, "role")
		if p = mb.post("/console/settings/api-keys", url.Values{"name": {"mine"}, "role": {"owner"}}); p.Status != http.StatusForbidden {
			t.Fatalf("member makes an owner key: %d", p.Status)
		}
		p = mb.post("/console/settings/api-keys", url.Values{"name": {"mine"}})
		if p.Status != http.StatusCreated || newKeySecret.FindStringSubmatch(p.Body) == nil {
			t.Fatalf("member's own key: %d", p.Status)
		}
		// The owner's key is not theirs to revoke: a 404.
		ownerKeys := regexp.MustCompile(`<tr data-key="([0-9a-f-]{36})">`).FindAllStringSubmatch(b.get("/console/settings").Body, -1)
		if p = mb.post("/console/settings/api-keys/"+ownerKeys[len(ownerKeys)-1][1]+"/revoke", nil); p.Status != http.StatusNotFound {
			t.Fatalf("member revokes the owner's key: %d", p.Status)
		}

		// The owner makes the member an admin; the last owner stays one.
		memberID := regexp.MustCompile(`<tr data-member="([0-9a-f-]{36})">\s*<td>Member`).FindStringSubmatch(b.get("/console/settings").Body)
		p = b.post("/console/settings/members/"+memberID[1]+"/role", url.Values{"role": {"admin"}})
		p.mustContain(t, "Role changed.")
		if p = b.post("/console/settings/members/"+owner.UserID+"/role", url.Values{"role": {"member"}}); p.Status != http.StatusConflict {
			t.Fatalf("demote the last owner: %d", p.Status)
		}

		// Another account: none of this is theirs (404s) and none is listed.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		p = ob.get("/console/settings")
		if strings.Contains(p.Body, "S3_KEY") || strings.Contains(p.Body, "Boss") || strings.Contains(p.Body, ">ci<") {
			t.Fatalf("other account sees this one's settings:\n%s", p.Body)
		}
		for path, form := range map[string]url.Values{
			"/console/settings/api-keys/" + keyID[1] + "/revoke": nil,
			"/console/settings/members/" + memberID[1] + "/role": {"role": {"owner"}},
			"/console/settings/secrets/S3_KEY/delete":            nil,
		} {
			if p = ob.post(path, form); p.Status != http.StatusNotFound {
				t.Fatalf("other account POST %s: %d", path, p.Status)
			}
		}
		if p = ob.post("/console/settings/mcp-tools", url.Values{"agent_id": {agent}, "enabled": {"on"}}); p.Status != http.StatusNotFound {
			t.Fatalf("other account exposes the agent: %d", p.Status)
		}
		// The owner deletes the secret.
		b.get("/console/settings")
		b.post("/console/settings/secrets/S3_KEY/delete", nil).mustContain(t, "Secret deleted.")
	})
}
