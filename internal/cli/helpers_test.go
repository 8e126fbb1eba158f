package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

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
	cli.RegisterEnv(root, func(k string) string { return getenv(t, k) })
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

// The tests run side by side, so none may set a process variable: each
// test that calls isolate gets an environment of its own, which the
// commands it runs read in place of the process's. A subtest reads its
// nearest ancestor's.
var envs = struct {
	sync.Mutex
	m map[string]map[string]string // by test name
}{m: map[string]map[string]string{}}

// isolate gives the test an empty environment but for its own
// configuration directory and HOME. It returns the configuration directory.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	envs.Lock()
	envs.m[t.Name()] = map[string]string{"SERVICE_CONFIG_DIR": dir, "HOME": t.TempDir()}
	envs.Unlock()
	t.Cleanup(func() {
		envs.Lock()
		delete(envs.m, t.Name())
		envs.Unlock()
	})
	return dir
}

// envOf is the environment t runs commands in (the caller holds envs'
// lock), nil when neither t nor an ancestor called isolate.
func envOf(t *testing.T) map[string]string {
	for name := t.Name(); ; {
		if m, ok := envs.m[name]; ok {
			return m
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return nil
		}
		name = name[:i]
	}
}

// getenv reads a variable of t's environment; without one, every variable
// is unset, so no developer's SERVICE_API_KEY reaches a test.
func getenv(t *testing.T, k string) string {
	envs.Lock()
	defer envs.Unlock()
	return envOf(t)[k]
}

// setenv sets a variable of t's environment (isolate must have made one).
func setenv(t *testing.T, k, v string) {
	t.Helper()
	envs.Lock()
	defer envs.Unlock()
	m := envOf(t)
	if m == nil {
		t.Fatal("setenv before isolate")
	}
	m[k] = v
}

func withOIDC(issuer, audience string) func(*server.Config) {
	return func(c *server.Config) { c.OIDCIssuer, c.OIDCAudience = issuer, audience }
}

var ctx = context.Background()

func jsonInto(s string, v any) error { return json.Unmarshal([]byte(s), v) }
