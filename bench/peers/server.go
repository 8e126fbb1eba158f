package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// server is a child process tree started by this tool, in its own process group.
type server struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
}

// startServer starts cmd in a new process group, its output going to logPath.
func startServer(name string, cmd *exec.Cmd, logPath string) (*server, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	return s, nil
}

func (s *server) pgid() int { return s.cmd.Process.Pid }

// stop ends the whole process group: SIGTERM, then SIGKILL for whatever is
// left after a grace period (the group may outlive its leader).
func (s *server) stop() {
	signalGroup(s.pgid(), syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		u, err := readGroupUsage(s.pgid())
		if err != nil || u.Procs == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	signalGroup(s.pgid(), syscall.SIGKILL)
	<-s.done
	s.log.Close()
}

// exited reports whether the group leader has gone.
func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// waitReady polls url until it answers 200, the server dies, or timeout.
func waitReady(ctx context.Context, s *server, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if s.exited() {
			return fmt.Errorf("%s exited before it was ready (see %s)", s.name, s.log.Name())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %w (see %s)", s.name, url, ctx.Err(), s.log.Name())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func loopback(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }
