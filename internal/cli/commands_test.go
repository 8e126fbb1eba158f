package cli_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/buildinfo"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestCommandsOnRealServer runs every implemented operation's command
// against the real server on each database.
func TestCommandsOnRealServer(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}

		var me client.MeResponse
		run(t, append(g, "me")...).ok(t, &me) // stdout is not a terminal: JSON
		if me.AccountID != ts.AccountID {
			t.Fatalf("me = %+v", me)
		}
		tbl := run(t, append(g, "me", "-o", "table")...)
		tbl.ok(t, nil)
		if !strings.Contains(tbl.stdout, "Account:") || !strings.Contains(tbl.stdout, ts.AccountID) {
			t.Fatalf("table:\n%s", tbl.stdout)
		}

		var v client.APIVersionResponse
		run(t, append(g, "version", "get")...).ok(t, &v)
		if v.EffectiveVersion != client.DefaultVersion || v.PinnedVersion != nil {
			t.Fatalf("version get = %+v", v)
		}
		run(t, append(g, "version", "set", client.LatestVersion)...).ok(t, &v)
		if v.PinnedVersion == nil || *v.PinnedVersion != client.LatestVersion || v.EffectiveVersion != client.LatestVersion {
			t.Fatalf("version set = %+v; want the state after the pin", v)
		}
		run(t, append(g, "--api-version", client.Version20260701, "version", "get")...).ok(t, &v)
		if v.EffectiveVersion != client.Version20260701 || *v.PinnedVersion != client.LatestVersion {
			t.Fatalf("--api-version = %+v", v)
		}
		tbl = run(t, append(g, "version", "get", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "Pinned:") || !strings.Contains(tbl.stdout, client.LatestVersion) {
			t.Fatalf("version table:\n%s", tbl.stdout)
		}
		v = client.APIVersionResponse{}
		r := run(t, append(g, "version", "clear")...)
		r.ok(t, &v)
		if v.PinnedVersion != nil || !strings.Contains(r.stdout, `"pinned_version": null`) || v.EffectiveVersion != client.DefaultVersion {
			t.Fatalf("version clear = %s", r.stdout)
		}

		// The environment stands in for the flags.
		setenv(t, "SERVICE_API_URL", ts.URL)
		setenv(t, "SERVICE_API_KEY", ts.Key)
		run(t, "me").ok(t, &me)
		setenv(t, "SERVICE_API_URL", "")
		setenv(t, "SERVICE_API_KEY", "")

		// Exit codes of the failures a user meets.
		run(t, append(g, "version", "set", "2026-13-45")...).exits(t, cli.ExitValidation, "body.version")
		member := ts.IssueKey(t, ts.AccountID, "", store.RoleMember)
		run(t, "--base-url", ts.URL, "--api-key", member, "version", "set", client.LatestVersion).exits(t, cli.ExitAuth, "owner or admin")
		run(t, "--base-url", ts.URL, "--api-key", "agk_wrong", "me").exits(t, cli.ExitAuth, "agentry auth login")
		run(t, append(g, "--api-version", "2030-01-01", "me")...).exits(t, cli.ExitUsage, "not a version this agentry was built for")
		run(t, append(g, "--account-id", "nope", "me")...).exits(t, cli.ExitValidation, "X-Account-Id")
	})
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	isolate(t)
	run(t, "version", "set").exits(t, cli.ExitUsage, "accepts 1 arg")
	run(t, "me", "extra").exits(t, cli.ExitUsage, "accepts 0 arg")
	run(t, "me", "--no-such-flag").exits(t, cli.ExitUsage, "unknown flag")
	run(t, "nonsense").exits(t, cli.ExitUsage, "unknown command")
	run(t, "--api-key", "k", "-o", "yaml", "me", "--base-url", "http://127.0.0.1:1").exits(t, cli.ExitUnreachable, "is the server running")
	run(t, "auth", "login", "--flow", "carrier-pigeon").exits(t, cli.ExitUsage, "--flow")
	run(t, "configure", "sso").exits(t, cli.ExitUsage, "nothing to configure")
	run(t, "configure", "sso", "--sso-domain", "ftp://x").exits(t, cli.ExitUsage, "sso domain")
	run(t, "configure", "sso", "--sso-account-id", "acme").exits(t, cli.ExitUsage, "not an account id")
}

func TestOutputFormatIsChecked(t *testing.T) {
	t.Parallel()
	isolate(t)
	ts := testserver.Start(t, store.SQLite)
	run(t, "--base-url", ts.URL, "--api-key", ts.Key, "-o", "yaml", "me").exits(t, cli.ExitUsage, "unknown output format")
}

// TestHelp checks the help of the root and that every client command has
// examples.
func TestHelp(t *testing.T) {
	t.Parallel()
	isolate(t)
	r := run(t, "--help")
	r.ok(t, nil)
	for _, want := range []string{"API commands:", "Sign-in and configuration:", "me ", "version ", "auth ", "configure ",
		"--api-key", "--profile", "--account-id", "--api-version", "--base-url", "--output", "Examples:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("agentry --help lacks %q", want)
		}
	}
	for _, args := range [][]string{{"me"}, {"version", "get"}, {"version", "set"}, {"version", "clear"},
		{"auth", "login"}, {"auth", "logout"}, {"auth", "status"}, {"configure", "sso"}} {
		r := run(t, append(args, "--help")...)
		r.ok(t, nil)
		if !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "agentry "+strings.Join(args, " ")) {
			t.Errorf("agentry %s --help has no example of itself:\n%s", strings.Join(args, " "), r.stdout)
		}
	}
}

func TestVersionFlagPrintsTheBuild(t *testing.T) {
	t.Parallel()
	isolate(t)
	r := run(t, "--version")
	r.ok(t, nil)
	want := "agentry " + buildinfo.Read().String() + "\n"
	if r.stdout != want || !strings.Contains(r.stdout, "commit ") {
		t.Fatalf("--version printed %q, want %q", r.stdout, want)
	}
}
