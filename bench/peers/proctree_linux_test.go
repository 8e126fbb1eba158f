//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestParseStatCountsFieldsFromTheLastParenthesis(t *testing.T) {
	// A command name with spaces and a parenthesis, as a process may set it.
	line := "4242 (node (worker) 1) S 1 4240 4240 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 11 0 123 456789 1536 18446744073709551615\n"
	st, ok := parseStat(line)
	if !ok {
		t.Fatal("not parsed")
	}
	if st.pgrp != 4240 || st.ticks != 281 || st.rssPages != 1536 {
		t.Errorf("got %+v, want pgrp 4240, 281 ticks, 1536 pages", st)
	}
	if _, ok := parseStat("4242 (short) S 1 2"); ok {
		t.Error("a truncated line was parsed")
	}
}

// TestServerStopEndsTheWholeGroup starts a shell that leaves a child
// behind, and checks that stop ends the child too.
func TestServerStopEndsTheWholeGroup(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	s, err := startServer("group", exec.Command(sh, "-c", "sleep 300 & sleep 300"), dir+"/log")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var u groupUsage
	for time.Now().Before(deadline) {
		if u, _ = readGroupUsage(s.pgid()); u.Procs >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if u.Procs < 3 || u.RSS <= 0 {
		t.Fatalf("group usage %+v, want 3 processes with memory", u)
	}
	s.stop()
	if u, _ = readGroupUsage(s.pgid()); u.Procs != 0 {
		t.Errorf("%d processes of the group left after stop", u.Procs)
	}
	if _, err := os.Stat(dir + "/log"); err != nil {
		t.Error(err)
	}
}

func TestSettleWaitsForABusyGroupAndPassesAnIdleOne(t *testing.T) {
	idle, err := startServer("idle", exec.Command("sleep", "300"), t.TempDir()+"/idle.log")
	if err != nil {
		t.Fatal(err)
	}
	defer idle.stop()
	busy, err := startServer("busy", exec.Command("sh", "-c", "while :; do :; done"), t.TempDir()+"/busy.log")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.stop()
	ctx := context.Background()
	if !settle(ctx, &target{PGID: idle.pgid()}, 5*time.Second) {
		t.Error("a sleeping process group was not taken as idle")
	}
	if settle(ctx, &target{PGID: busy.pgid()}, 1500*time.Millisecond) {
		t.Error("a spinning process group was taken as idle")
	}
}
