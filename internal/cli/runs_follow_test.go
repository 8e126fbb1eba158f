package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/spf13/cobra"
)

// runCtx is run with a context the test cancels (Ctrl-C: main cancels the
// command's context on SIGINT).
func runCtx(t *testing.T, ctx context.Context, args ...string) result {
	root := &cobra.Command{Use: "agentry", SilenceUsage: true, SilenceErrors: true}
	cli.RegisterEnv(root, func(k string) string { return getenv(t, k) })
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(&errb, "agentry:", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: cli.ExitCode(err), err: err}
}

// heldRun is an agent whose runs answer, then wait at a webhook until the
// test releases them.
type heldRun struct {
	agent   string
	arrived chan struct{}
	release func()
}

func holdAgent(t *testing.T, ts *testserver.Server) heldRun {
	t.Helper()
	arrived, release := make(chan struct{}, 4), make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { free(); hook.Close() })
	agent := runsAgent(t, ts, `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}",
		"child_steps":[{"id":"hook","step_type":"webhook_call","url":"`+hook.URL+`","child_steps":[{"id":"show","step_type":"display_result","template":"done: {{agent.input}}"}]}]}]}`)
	return heldRun{agent: agent, arrived: arrived, release: free}
}

func (h heldRun) waitArrived(t *testing.T) {
	t.Helper()
	select {
	case <-h.arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the run never reached the webhook")
	}
}

// restartingProxy stands in front of the server; taking it down cuts every
// open stream and drops new connections, as a server restart does.
type restartingProxy struct {
	*httptest.Server
	mu      sync.Mutex
	down    bool
	cancels []context.CancelFunc
	// bodyWaiters are closed at the next write of a response body.
	bodyWaiters []chan struct{}
}

// nextBody returns a channel closed once the proxy has passed on the first
// bytes of a response body after this call. A run stream's first event
// names its run, so a command that has been sent it can follow the run
// after a cut; one cut before it cannot (and says so).
func (p *restartingProxy) nextBody() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	p.bodyWaiters = append(p.bodyWaiters, ch)
	return ch
}

func (p *restartingProxy) sawBody() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range p.bodyWaiters {
		close(ch)
	}
	p.bodyWaiters = nil
}

// bodyWriter tells the proxy when a response body passes.
type bodyWriter struct {
	http.ResponseWriter
	p *restartingProxy
}

func (w bodyWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	if n > 0 {
		w.p.sawBody()
	}
	return n, err
}

// Unwrap lets the reverse proxy flush through to the client.
func (w bodyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func waitBody(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("the stream sent nothing through the proxy")
	}
}

func newRestartingProxy(t *testing.T, target string) *restartingProxy {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	p := &restartingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		down := p.down
		ctx, cancel := context.WithCancel(r.Context())
		p.cancels = append(p.cancels, cancel)
		p.mu.Unlock()
		if down {
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		rp.ServeHTTP(bodyWriter{w, p}, r.WithContext(ctx))
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *restartingProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for _, c := range p.cancels {
			c()
		}
		p.cancels = nil
	}
}

func TestRunsStreamCtrlCAndFollow(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		h := holdAgent(t, ts)

		// Ctrl-C while the run is held: the command stops following, and
		// says which run goes on and how to follow it again.
		ctx, interrupt := context.WithCancel(context.Background())
		done := make(chan result, 1)
		go func() { done <- runCtx(t, ctx, append(g, "runs", "stream", h.agent, "--input", "there")...) }()
		h.waitArrived(t)
		time.Sleep(500 * time.Millisecond) // let the command read the events sent so far
		interrupt()
		r := <-done
		runs, _, err := runs.NewRepo(ts.DB, nil).RunsOfAgent(context.Background(), ts.AccountID, h.agent, "", 10, 0)
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs: %v %v", runs, err)
		}
		runID := runs[0].ID
		if r.code == 0 || !strings.Contains(r.stderr, "agentry runs follow "+runID+" --agent "+h.agent) || !strings.Contains(r.stderr, "it goes on") {
			t.Fatalf("Ctrl-C: exit %d, stderr %q", r.code, r.stderr)
		}

		// Follow it again, with and without --agent; it ends with the run.
		follow := make(chan result, 1)
		go func() { follow <- runCtx(t, context.Background(), append(g, "runs", "follow", runID)...) }()
		time.Sleep(200 * time.Millisecond) // attached before the release (the replay covers it either way)
		h.release()
		r = <-follow
		r.ok(t, nil)
		if r.stdout != "done: there\n" {
			t.Errorf("follow printed %q", r.stdout)
		}
		r = run(t, append(g, "runs", "follow", runID, "--agent", h.agent, "-o", "json")...)
		r.ok(t, nil)
		if !strings.Contains(r.stdout, `"event":"done"`) {
			t.Errorf("follow -o json: %s", r.stdout)
		}
		run(t, append(g, "runs", "follow", store.NewID())...).exits(t, cli.ExitNotFound, "")
	})
}

func TestRunsFollowRidesOutARestart(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		proxy := newRestartingProxy(t, ts.URL)
		g := []string{"--base-url", proxy.URL, "--api-key", ts.Key}
		h := holdAgent(t, ts)

		// The server goes away mid-stream and comes back: the stream
		// reconnects with Last-Event-ID and prints the answer once.
		done := make(chan result, 1)
		named := proxy.nextBody()
		go func() {
			done <- runCtx(t, context.Background(), append(g, "runs", "stream", h.agent, "--input", "again")...)
		}()
		h.waitArrived(t)
		waitBody(t, named) // the cut comes after the event naming the run
		proxy.setDown(true)
		// Longer than a few quick retries (5 at 1s) would ride out.
		time.Sleep(6500 * time.Millisecond)
		proxy.setDown(false)
		h.release()
		r := <-done
		r.ok(t, nil)
		if r.stdout != "done: again\n" {
			t.Fatalf("after the restart: %q (stderr %q)", r.stdout, r.stderr)
		}

		// A server that stays away: after --reconnect-for, exit 10 with
		// the command to follow the run later.
		h2 := holdAgent(t, ts)
		named = proxy.nextBody()
		go func() {
			done <- runCtx(t, context.Background(), append(g, "runs", "stream", h2.agent, "--input", "x", "--reconnect-for", "1s")...)
		}()
		h2.waitArrived(t)
		waitBody(t, named)
		proxy.setDown(true)
		r = <-done
		if r.code != cli.ExitUnreachable || !strings.Contains(r.stderr, "agentry runs follow ") {
			t.Fatalf("server gone: exit %d, stderr %q", r.code, r.stderr)
		}
		proxy.setDown(false)
	})
}
