package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestKeysMembersCreditsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		r := run(t, append(g, "keys", "create", "--name", "ci", "-o", "json")...)
		var k struct{ ID, Key string }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &k) != nil || k.Key == "" {
			t.Fatalf("keys create: %+v", r)
		}
		if r = run(t, append(g, "keys", "list", "-o", "table")...); r.code != 0 || !strings.Contains(r.stdout, k.ID) || strings.Contains(r.stdout, k.Key) {
			t.Fatalf("keys list: %+v", r)
		}
		if r = run(t, append(g, "keys", "revoke", k.ID)...); r.code != 0 || !strings.Contains(r.stdout, "revoked") {
			t.Fatalf("keys revoke: %+v", r)
		}
		if r = run(t, append(g, "members", "list", "-o", "table")...); r.code != 0 || !strings.Contains(r.stdout, ts.UserID) || !strings.Contains(r.stdout, "owner") {
			t.Fatalf("members list: %+v", r)
		}
		// The last owner stays one: the API's 409.
		if r = run(t, append(g, "members", "set-role", ts.UserID, "member")...); r.code == 0 {
			t.Fatalf("demoted the last owner: %+v", r)
		}
		if r = run(t, append(g, "credits", "show", "--days", "3", "-o", "table")...); r.code != 0 || !strings.Contains(r.stdout, "Balance") {
			t.Fatalf("credits show: %+v", r)
		}
	})
}
