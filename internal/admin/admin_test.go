package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/admin"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/spf13/cobra"
)

// run executes `agentry admin ARGS…` on the database at url, with -o json
// when the command prints a table.
func run(t *testing.T, url string, args ...string) (string, error) {
	t.Helper()
	cmd := admin.Command()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	args = append(args, "--database-url", url, "--data-dir", t.TempDir())
	if leaf, _, err := cmd.Find(args); err == nil && leaf.Flags().Lookup("output") != nil {
		args = append(args, "-o", "json")
	}
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func runJSON(t *testing.T, url string, v any, args ...string) {
	t.Helper()
	out, err := run(t, url, args...)
	if err != nil {
		t.Fatalf("admin %v: %v", args, err)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("admin %v: output is not JSON: %v\n%s", args, err, out)
	}
}

func TestAdmin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		url := storetest.URL(t, d)
		var u map[string]string
		runJSON(t, url, &u, "users", "create", "--email", "ops@example.com", "--name", "Ops")
		if u["user_id"] == "" || u["personal_account_id"] == "" {
			t.Fatalf("user: %v", u)
		}
		if _, err := run(t, url, "users", "create", "--email", "OPS@example.com"); err == nil {
			t.Error("duplicate email accepted")
		}
		var org map[string]string
		runJSON(t, url, &org, "orgs", "create", "--name", "Acme", "--owner", u["user_id"])
		if _, err := run(t, url, "orgs", "create", "--name", "Ghost", "--owner", store.NewID()); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("org with unknown owner: %v", err)
		}
		var second map[string]string
		runJSON(t, url, &second, "users", "create", "--name", "Second")
		var m map[string]string
		runJSON(t, url, &m, "members", "add", "--account", org["id"], "--user", second["user_id"], "--role", "admin")
		if _, err := run(t, url, "members", "add", "--account", org["id"], "--user", second["user_id"], "--role", "boss"); err == nil {
			t.Error("bad role accepted")
		}
		var members []map[string]string
		runJSON(t, url, &members, "members", "list", "--account", org["id"])
		if len(members) != 2 {
			t.Errorf("members: %v", members)
		}
		var orgs []map[string]any
		runJSON(t, url, &orgs, "orgs", "list")
		if len(orgs) != 1 || orgs[0]["name"] != "Acme" {
			t.Errorf("orgs: %v", orgs)
		}
		var accounts []map[string]any
		runJSON(t, url, &accounts, "accounts", "list")
		if len(accounts) != 3 {
			t.Errorf("accounts: %v", accounts)
		}

		var key map[string]string
		runJSON(t, url, &key, "keys", "create", "--account", org["id"], "--user", second["user_id"], "--name", "ci", "--role", "member")
		if !strings.HasPrefix(key["key"], "agk_") {
			t.Fatalf("key: %v", key)
		}
		if _, err := run(t, url, "keys", "create", "--account", org["id"], "--user", store.NewID()); err == nil {
			t.Error("key for a non-member accepted")
		}
		var keys []map[string]any
		runJSON(t, url, &keys, "keys", "list", "--account", org["id"])
		if len(keys) != 1 || keys[0]["revoked_at"] != nil || strings.Contains(toJSON(keys), key["key"]) {
			t.Errorf("keys list: %v", keys)
		}
		if _, err := run(t, url, "keys", "revoke", key["id"]); err != nil {
			t.Fatal(err)
		}
		runJSON(t, url, &keys, "keys", "list", "--account", org["id"])
		if keys[0]["revoked_at"] == nil {
			t.Error("not revoked")
		}

		var grant map[string]any
		runJSON(t, url, &grant, "credits", "grant", org["id"], "--amount", "250.5")
		if want := float64(billing.DefaultOpeningCredits) + 250.5; grant["balance"] != want {
			t.Errorf("grant: %v, want balance %v", grant, want)
		}
		var show map[string]any
		runJSON(t, url, &show, "credits", "show", org["id"])
		if show["balance"] != float64(billing.DefaultOpeningCredits)+250.5 || len(show["ledger"].([]any)) != 2 {
			t.Errorf("show: %v", show)
		}
		// The older --account flag still works; both forms at once must agree.
		runJSON(t, url, &show, "credits", "show", "--account", org["id"])
		if show["account_id"] != org["id"] {
			t.Errorf("show --account: %v", show)
		}
		if _, err := run(t, url, "credits", "show", org["id"], "--account", store.NewID()); err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("two different account ids: %v", err)
		}
		if _, err := run(t, url, "credits", "grant", "--account", store.NewID(), "--amount", "1"); err == nil {
			t.Error("grant to unknown account accepted")
		}

		// jobs ping needs a worker on the same database.
		cfg := server.Defaults()
		cfg.Addr, cfg.DataDir, cfg.DatabaseURL = "127.0.0.1:0", t.TempDir(), url
		s, err := server.New(context.Background(), cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		defer func() { cancel(); <-done }()
		cmd := admin.Command()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"jobs", "ping", "--database-url", url, "--wait", "20s"})
		if err := cmd.ExecuteContext(context.Background()); err != nil || !strings.Contains(out.String(), "ran in") {
			t.Errorf("jobs ping: %v %s", err, out.String())
		}
	})
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAdminFlagsApplyToTheirCommands: a command lists only the flags it
// uses: -o where it prints a table, --default-credits where it creates an
// account.
func TestAdminFlagsApplyToTheirCommands(t *testing.T) {
	var walk func(c *cobra.Command)
	printing := map[string]bool{}
	crediting := map[string]bool{}
	walk = func(c *cobra.Command) {
		if !c.HasSubCommands() {
			printing[c.CommandPath()] = c.Flags().Lookup("output") != nil
			crediting[c.CommandPath()] = c.Flags().Lookup("default-credits") != nil
			if c.Flags().Lookup("database-url") == nil && c.InheritedFlags().Lookup("database-url") == nil {
				t.Errorf("%s lacks --database-url", c.CommandPath())
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(admin.Command())
	for path, want := range map[string]bool{"admin users create": true, "admin credits show": true, "admin keys list": true,
		"admin keys revoke": false, "admin members remove": false, "admin jobs ping": false, "admin reviews decide": false} {
		if printing[path] != want {
			t.Errorf("%s: has -o = %v, want %v", path, printing[path], want)
		}
	}
	for path, has := range crediting {
		want := path == "admin users create" || path == "admin orgs create" || path == "admin accounts create"
		if has != want {
			t.Errorf("%s: has --default-credits = %v, want %v", path, has, want)
		}
	}
}
