package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentry/agentry/client/sso"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/server"
	"github.com/spf13/cobra"
)

// result is one in-process run of the agentry command.
type result struct {
	stdout, stderr string
	code           int
	err            error
}

// run executes `agentry args…` in process, as main does: a fresh root with
// the client commands registered, output captured, the exit code mapped.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runWith(t, nil, args...)
}

// runWith is run with another stderr (a test that reads instructions from it).
func runWith(t *testing.T, stderr io.Writer, args ...string) result {
	t.Helper()
	root := &cobra.Command{Use: "agentry", SilenceUsage: true, SilenceErrors: true}
	cli.Register(root)
	var out, errb bytes.Buffer
	root.SetOut(&out)
	var ew io.Writer = &errb
	if stderr != nil {
		ew = io.MultiWriter(&errb, stderr)
	}
	root.SetErr(ew)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		fmt.Fprintln(&errb, "agentry:", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: cli.ExitCode(err), err: err}
}

// ok fails the test unless the run succeeded, and decodes its JSON output.
func (r result) ok(t *testing.T, v any) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
		}
	}
}

func (r result) exits(t *testing.T, code int, stderrHas string) {
	t.Helper()
	if r.code != code || !strings.Contains(r.stderr, stderrHas) {
		t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, code, r.stderr, stderrHas)
	}
}

// isolate clears the SERVICE_* variables and gives the test its own
// configuration directory and HOME. It returns the configuration directory.
func isolate(t *testing.T) string {
	t.Helper()
	for _, k := range []string{"SERVICE_API_URL", "SERVICE_API_KEY", "SERVICE_PROFILE", "SSH_CONNECTION", "SSH_TTY",
		sso.EnvDomain, sso.EnvClientID, sso.EnvRegion, sso.EnvClientSecret} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	t.Setenv("SERVICE_CONFIG_DIR", dir)
	t.Setenv("HOME", t.TempDir())
	return dir
}

func withOIDC(issuer, audience string) func(*server.Config) {
	return func(c *server.Config) { c.OIDCIssuer, c.OIDCAudience = issuer, audience }
}

var ctx = context.Background()

func jsonInto(s string, v any) error { return json.Unmarshal([]byte(s), v) }
