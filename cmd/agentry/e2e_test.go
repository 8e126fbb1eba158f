package main

import (
	"context"
	"flag"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/riverqueue/river"
)

// TestMain lets the test binary stand in for the agentry binary: run with
// AGENTRY_E2E_CHILD=1 it is `agentry` with the given arguments, so the
// end-to-end tests start real child processes without a separate build.
//
// The tests run side by side, more of them than there are CPUs unless
// -parallel says otherwise: each has databases and child processes of its
// own, and spends most of its time waiting for them (a restart, the job
// rescuer).
func TestMain(m *testing.M) {
	if os.Getenv("AGENTRY_E2E_CHILD") == "1" {
		os.Args = append([]string{"agentry"}, strings.Split(os.Getenv("AGENTRY_E2E_ARGS"), " ")...)
		main()
		os.Exit(0)
	}
	if f := flag.Lookup("test.parallel"); f != nil {
		_ = f.Value.Set(strconv.Itoa(max(16, runtime.GOMAXPROCS(0))))
	}
	os.Exit(m.Run())
}

// rescueInterval is how often the tests' processes look for jobs left
// running by a killed one (--job-rescue-interval).
const rescueInterval = "200ms"

type child struct {
	cmd  *exec.Cmd
	addr string
	logs *childLogs
}

// childLogs keeps a child's stdout and stderr: the process's copying
// goroutines write while the test reads.
type childLogs struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *childLogs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *childLogs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// servingAddr is the address in the child's "agentry serving" line.
var servingAddr = regexp.MustCompile(`msg="agentry serving".*? addr=(\S+)`)

// freeAddr is a loopback address nobody listens on now, for a listener
// that must keep its address across restarts (the SMTP one).
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startServe runs `agentry serve` in a child process and waits until ready.
// The child binds a port the kernel picks and the test reads it from the
// child's log: a port picked by the test and handed over could meanwhile
// be taken by another test's child (a restart on its old address), whose
// readiness the check would then see.
func startServe(t *testing.T, dbURL, dataDir string, env ...string) *child {
	t.Helper()
	return startServeAt(t, "127.0.0.1:0", dbURL, dataDir, env...)
}

// startServeAt is startServe on a given address (a restart on the same one).
func startServeAt(t *testing.T, addr, dbURL, dataDir string, env ...string) *child {
	t.Helper()
	c := &child{logs: &childLogs{}}
	c.cmd = exec.Command(os.Args[0])
	// Info, not less: the address is in the "agentry serving" line.
	c.cmd.Env = append(os.Environ(), "AGENTRY_E2E_CHILD=1", "AGENTRY_E2E_ARGS=serve",
		"SERVICE_ADDR="+addr, "SERVICE_DATABASE_URL="+dbURL, "SERVICE_DATA_DIR="+dataDir, "SERVICE_LOG_LEVEL=info", "SERVICE_SMTP_ADDR=off",
		// A job its killed process left running is retried once it has
		// run for the test's SERVICE_JOB_RESCUE_AFTER, not up to 45 s
		// later, when River's rescuer (every 30 s, on a leader elected up
		// to 15 s after the kill) would get to it.
		"SERVICE_JOB_RESCUE_INTERVAL="+rescueInterval)
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	// A bound, not a wait: ready returns at once. CI's 2 cores, shared
	// with another package's tests and browsers, have taken 30 s to start one.
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if c.addr == "" {
			if m := servingAddr.FindStringSubmatch(c.logs.String()); m != nil {
				c.addr = m[1]
			}
		}
		if c.addr != "" {
			resp, err := http.Get("http://" + c.addr + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return c
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("agentry serve did not become ready:\n%s", c.logs)
	return nil
}

func waitPing(t *testing.T, db *store.DB, id string, within time.Duration, done func(jobs.PingRecord) bool) jobs.PingRecord {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		p, err := jobs.PingByID(context.Background(), db, id)
		if err != nil {
			t.Fatal(err)
		}
		if done(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("ping %s not done within %v: %+v", id, within, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestJobsSurviveKill enqueues two jobs — one due later, one running — kills
// the serving process with SIGKILL, restarts it, and expects both to finish:
// the queued one when due, the interrupted one when the rescuer retries it.
func TestJobsSurviveKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes and waits for the job rescuer")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dbURL, dataDir := storetest.URL(t, d), t.TempDir()
		env := []string{"SERVICE_JOB_TIMEOUT=3s", "SERVICE_JOB_RESCUE_AFTER=4s", "SERVICE_BOOTSTRAP_API_KEY=agk_e2e_key_0123456789abcdef0123456789"}
		first := startServe(t, dbURL, dataDir, env...)

		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		q, err := jobs.Open(ctx, db, river.NewWorkers(), jobs.Config{}) // enqueue only
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop(ctx)
		running, err := jobs.Ping(ctx, db, q, "running at kill", 2500*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		queued, err := jobs.CreatePingRecord(ctx, db, "queued at kill")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Insert(ctx, jobs.PingArgs{PingID: queued.ID}, &river.InsertOpts{ScheduledAt: time.Now().Add(3 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		waitPing(t, db, running.ID, 60*time.Second, func(p jobs.PingRecord) bool { return p.StartedAt != nil })

		if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = first.cmd.Wait()
		for _, id := range []string{running.ID, queued.ID} {
			if p, _ := jobs.PingByID(ctx, db, id); p.FinishedAt != nil {
				t.Fatalf("ping %s finished before the kill; the test proves nothing", id)
			}
		}

		startServe(t, dbURL, dataDir, env...)
		waitPing(t, db, queued.ID, 60*time.Second, func(p jobs.PingRecord) bool { return p.FinishedAt != nil })
		// The rescue sweep retries it once it has run for 4 s.
		p := waitPing(t, db, running.ID, 90*time.Second, func(p jobs.PingRecord) bool { return p.FinishedAt != nil })
		if p.Attempts < 2 {
			t.Errorf("interrupted job finished in %d attempts; it should have been retried", p.Attempts)
		}
	})
}

// TestGracefulShutdown sends SIGTERM while a job runs: the process stops
// taking work, lets the job finish, and exits cleanly.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	dbURL, dataDir := storetest.URL(t, store.SQLite), t.TempDir()
	c := startServe(t, dbURL, dataDir)
	db, err := store.Open(ctx, dbURL, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q, err := jobs.Open(ctx, db, river.NewWorkers(), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(ctx)
	p, err := jobs.Ping(ctx, db, q, "running at SIGTERM", 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	waitPing(t, db, p.ID, 60*time.Second, func(p jobs.PingRecord) bool { return p.StartedAt != nil })
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- c.cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, c.logs)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("did not exit within 20s of SIGTERM")
	}
	got, _ := jobs.PingByID(ctx, db, p.ID)
	if got.FinishedAt == nil || got.Attempts != 1 {
		t.Errorf("running job was not allowed to finish: %+v", got)
	}
	if _, err := http.Get("http://" + c.addr + "/healthz"); err == nil {
		t.Error("still listening after shutdown")
	}
}

// TestFirstStart runs the binary as a new user would and checks the printed
// key and curl example work.
func TestFirstStart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dataDir := t.TempDir()
	c := startServe(t, "", dataDir)
	out := c.logs.String()
	i := strings.Index(out, "agk_")
	if i < 0 || !strings.Contains(out, "curl -H \"X-API-Key: ") {
		t.Fatalf("no key or example printed:\n%s", out)
	}
	key := strings.Fields(out[i:])[0]
	key = strings.Trim(key, `"`)
	req, _ := http.NewRequest("GET", "http://"+c.addr+"/me", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("printed key answered %d", resp.StatusCode)
	}
	if _, err := os.Stat(dataDir + "/agentry.db"); err != nil {
		t.Errorf("database not in the data dir: %v", err)
	}
	// A second start does not bootstrap again.
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	_ = c.cmd.Wait()
	c2 := startServe(t, "", dataDir)
	if strings.Contains(c2.logs.String(), "agk_") {
		t.Errorf("second start printed a new key:\n%s", c2.logs.String())
	}
}
