package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/agentry/agentry/internal/store"
)

// A test's PostgreSQL database costs two slow statements, and neither has
// to hold the test up:
//
//   - DROP DATABASE forces an immediate checkpoint on PostgreSQL 15, which
//     writes out every dirty page of the server (every other test's
//     database included) and waits for it: 0.4–0.5 s on a quiet machine,
//     several seconds while the suites run (37 drops in one CI run's first
//     minutes took 156 s of checkpoints). A test's cleanup now only queues
//     its database; one goroutine of the process drops them one after
//     another, while the tests go on.
//   - CREATE DATABASE … TEMPLATE copies about 11 MB through the
//     write-ahead log: 0.2–0.3 s quiet, 1–2 s under load. Once a process
//     has asked for a second copy (it is one that makes many), a goroutine
//     keeps spareCopies copies made ahead, which the next tests take.
//
// What a process has not dropped when it exits (its last queued drops, its
// unused spares) is named with its process ID (testDBName), so the next
// test process on the machine drops it (sweepOrphans). CI drops every
// database of its run at the end anyway (.ci/run).

// spareCopies is how many template copies are kept made ahead: the suites
// run two tests at a time.
const spareCopies = 2

type copyLifecycle struct {
	mu       sync.Mutex
	requests int          // copies asked for by this process's tests
	own      []queuedDrop // this process's databases, dropped first
	orphans  []queuedDrop // what ended processes left (sweepOrphans)
	dropping bool         // the dropper goroutine is running
	spares   chan string
}

type queuedDrop struct {
	name    string
	dropped chan struct{} // closed once dropped (or the drop failed)
}

// testDBName names a new test database: the base database's name, "t_", this
// process's ID and a random part. The process ID lets a later process tell
// a database left behind (its process gone) from one in use.
func (s *pgServer) testDBName() string {
	return pgName(s.baseName(), fmt.Sprintf("t_%07d_%s", os.Getpid(), randomSuffix()[:12]))
}

func (s *pgServer) baseName() string { return strings.TrimPrefix(s.base.Path, "/") }

// testDBPrefix is what every test database name of this base starts with,
// up to the process ID: the base name truncated as testDBName truncates it.
func (s *pgServer) testDBPrefix() string {
	full := pgName(s.baseName(), fmt.Sprintf("t_%07d_%012d", 0, 0))
	return full[:len(full)-len("0000000_000000000000")]
}

// takeSpare returns a copy made ahead, if one is ready, and starts making
// them once this process has asked for its second copy.
func (s *pgServer) takeSpare() (string, bool) {
	c := &s.copies
	c.mu.Lock()
	c.requests++
	if c.requests == 2 && c.spares == nil {
		c.spares = make(chan string, spareCopies)
		go s.makeSpares(c.spares)
	}
	spares := c.spares
	c.mu.Unlock()
	if spares == nil {
		return "", false
	}
	select {
	case name := <-spares:
		return name, true
	default:
		return "", false
	}
}

// makeSpares keeps the channel full of fresh copies until the process
// ends. On an error it stops: the tests then make their copies themselves
// and report the error.
func (s *pgServer) makeSpares(spares chan<- string) {
	for {
		name, err := s.createNow(context.Background(), false)
		if err != nil {
			return
		}
		spares <- name
	}
}

// dropLater queues a test's database for the dropper and returns what is
// closed once it is dropped.
func (s *pgServer) dropLater(name string) <-chan struct{} {
	return s.queueDrop(name, false)
}

func (s *pgServer) queueDrop(name string, orphan bool) <-chan struct{} {
	c := &s.copies
	c.mu.Lock()
	defer c.mu.Unlock()
	q := queuedDrop{name: name, dropped: make(chan struct{})}
	if orphan {
		c.orphans = append(c.orphans, q)
	} else {
		c.own = append(c.own, q)
	}
	if !c.dropping {
		c.dropping = true
		go s.dropQueued()
	}
	return q.dropped
}

// dropQueued drops the queued databases one at a time (their checkpoints
// would queue up in the server anyway), this process's before the
// orphans, until none is left.
func (s *pgServer) dropQueued() {
	c := &s.copies
	for {
		c.mu.Lock()
		var q queuedDrop
		switch {
		case len(c.own) > 0:
			q, c.own = c.own[0], c.own[1:]
		case len(c.orphans) > 0:
			q, c.orphans = c.orphans[0], c.orphans[1:]
		default:
			c.dropping = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if err := s.drop(q.name); err != nil {
			// No test is left to report to; the next process's sweep or CI's
			// end drops it.
			fmt.Fprintf(os.Stderr, "storetest: drop test database %s: %v\n", q.name, err)
		}
		close(q.dropped)
	}
}

// sweepOrphans queues the drop of the test databases of this base whose
// process has ended: what a process did not drop before exiting. They go
// after this process's own.
func (s *pgServer) sweepOrphans(ctx context.Context) error {
	names, err := s.orphans(ctx)
	for _, name := range names {
		s.queueDrop(name, true)
	}
	return err
}

// orphans lists the test databases of this base whose process has ended. It
// assumes the test processes sharing a base database run on this machine,
// as the suites and CI do.
func (s *pgServer) orphans(ctx context.Context) ([]string, error) {
	prefix := s.testDBPrefix()
	names, err := store.All(ctx, s.admin, func(r store.Scanner) (string, error) {
		var name string
		return name, r.Scan(&name)
	}, `SELECT datname FROM pg_database WHERE left(datname, $1) = $2`, len(prefix), prefix)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		pidPart, _, ok := strings.Cut(strings.TrimPrefix(name, prefix), "_")
		pid, err := strconv.Atoi(pidPart)
		if ok && err == nil && pid != os.Getpid() && !processAlive(pid) {
			out = append(out, name)
		}
	}
	return out, nil
}

// processAlive reports whether process pid exists on this machine.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	// EPERM: it exists, as another user's.
	return err == nil || errors.Is(err, syscall.EPERM)
}
