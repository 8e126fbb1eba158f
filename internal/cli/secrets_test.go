package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/spf13/cobra"
)

// runStdin is run with standard input.
func runStdin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	root := &cobra.Command{Use: "agentry", SilenceUsage: true, SilenceErrors: true}
	cli.Register(root)
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		fmt.Fprintln(&errb, "agentry:", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: cli.ExitCode(err), err: err}
}

func TestSecretsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		reveal := func(name string) string {
			t.Helper()
			v, err := ts.S.Secrets.Reveal(context.Background(), ts.AccountID, name)
			if err != nil {
				t.Fatal(err)
			}
			return v.Value
		}

		var s client.Secret
		// A new secret needs its hosts.
		runStdin(t, "piped-value\n", append(g, "secrets", "set", "S3_KEY")...).exits(t, cli.ExitValidation, "hosts")
		r := runStdin(t, "piped-value\n", append(g, "secrets", "set", "S3_KEY", "--host", "minio.example.net:9000")...)
		r.ok(t, &s)
		if s.Name != "S3_KEY" || len(s.Hosts) != 1 || s.Hosts[0] != "minio.example.net:9000" || !strings.Contains(r.stderr, "{{secrets.S3_KEY}}") || strings.Contains(r.stdout+r.stderr, "piped-value") {
			t.Fatalf("set from stdin: %s / %s", r.stdout, r.stderr)
		}
		if v := reveal("S3_KEY"); v != "piped-value" {
			t.Errorf("stored %q, want the piped line without its newline", v)
		}
		file := filepath.Join(t.TempDir(), "key.pem")
		if err := os.WriteFile(file, []byte("line 1\nline 2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r = runStdin(t, "", append(g, "secrets", "set", "S3_KEY", "--from-file", file)...)
		r.ok(t, nil)
		if v := reveal("S3_KEY"); v != "line 1\nline 2\n" || !strings.Contains(r.stderr, "replaced") {
			t.Errorf("from file: %q, %s", v, r.stderr)
		}
		// bind changes the hosts and keeps the value.
		r = run(t, append(g, "secrets", "bind", "S3_KEY", "--host", "S3.Example.com", "--host", "*.s3.example.com")...)
		r.ok(t, &s)
		if len(s.Hosts) != 2 || s.Hosts[0] != "s3.example.com" || s.Hosts[1] != "*.s3.example.com" || reveal("S3_KEY") != "line 1\nline 2\n" {
			t.Errorf("bind: %+v", s)
		}
		run(t, append(g, "secrets", "bind", "S3_KEY")...).exits(t, cli.ExitUsage, "--host")
		run(t, append(g, "secrets", "bind", "S3_KEY", "--host", "https://x.example/")...).exits(t, cli.ExitValidation, "host pattern")
		run(t, append(g, "secrets", "bind", "NOPE", "--host", "x.example")...).exits(t, cli.ExitValidation, "value")

		var list []client.Secret
		run(t, append(g, "secrets", "list")...).ok(t, &list)
		if len(list) != 1 || list[0].Name != "S3_KEY" {
			t.Fatalf("list: %+v", list)
		}
		tbl := run(t, append(g, "secrets", "list", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "S3_KEY") || !strings.Contains(tbl.stdout, "*.s3.example.com") || strings.Contains(tbl.stdout, "line 1") {
			t.Errorf("table:\n%s", tbl.stdout)
		}

		runStdin(t, "", append(g, "secrets", "set", "EMPTY")...).exits(t, cli.ExitUsage, "no value")
		runStdin(t, "v", append(g, "secrets", "set", "bad-name")...).exits(t, cli.ExitValidation, "Secret names")
		runStdin(t, "", append(g, "secrets", "set", "X", "--from-file", "/nonexistent")...).exits(t, cli.ExitUsage, "--from-file")
		member := ts.IssueKey(t, ts.AccountID, "", store.RoleMember)
		runStdin(t, "v", "--base-url", ts.URL, "--api-key", member, "secrets", "set", "S3_KEY").exits(t, cli.ExitAuth, "owner or admin")

		r = run(t, append(g, "secrets", "delete", "S3_KEY")...)
		r.ok(t, nil)
		run(t, append(g, "secrets", "delete", "S3_KEY")...).exits(t, cli.ExitNotFound, "")
	})
}
