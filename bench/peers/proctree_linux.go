//go:build linux

package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat;
// it is 100 on every Linux architecture Go supports.
const clockTicks = 100

// groupUsage is the CPU time and resident memory of every live process in
// one process group. The servers run in their own groups because the
// LangGraph dev server spawns node child processes that do the real work.
type groupUsage struct {
	CPU   time.Duration
	RSS   int64 // bytes
	Procs int
}

// readGroupUsage sums /proc/<pid>/stat over the processes whose group is pgid.
func readGroupUsage(pgid int) (groupUsage, error) {
	var u groupUsage
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return u, err
	}
	page := int64(os.Getpagesize())
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		st, ok := parseStat(string(b))
		if !ok || st.pgrp != pgid || st.zombie {
			continue
		}
		u.CPU += time.Duration(st.ticks) * time.Second / clockTicks
		u.RSS += st.rssPages * page
		u.Procs++
	}
	return u, nil
}

type procStat struct {
	pgrp     int
	zombie   bool  // exited, not yet reaped: no longer working or holding memory
	ticks    int64 // utime + stime
	rssPages int64
}

// parseStat reads the fields this tool needs from one /proc/<pid>/stat line.
// The command name (field 2) may hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(line string) (procStat, bool) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(line[i+1:])
	// f[0] is field 3 (state): field n is f[n-3].
	if len(f) < 22 {
		return procStat{}, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	ut, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	rss, err4 := strconv.ParseInt(f[21], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return procStat{}, false
	}
	return procStat{pgrp: pgrp, zombie: f[0] == "Z", ticks: ut + stime, rssPages: rss}, true
}

// ownGroup makes cmd the leader of a new process group, so the whole tree
// it spawns can be measured and stopped together.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to every process of the group.
func signalGroup(pgid int, sig syscall.Signal) error {
	return syscall.Kill(-pgid, sig)
}
