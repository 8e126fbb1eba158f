//go:build !linux

package main

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

type groupUsage struct {
	CPU   time.Duration
	RSS   int64
	Procs int
}

var errNotLinux = errors.New("the peer comparison reads /proc and runs on Linux only")

func readGroupUsage(int) (groupUsage, error) { return groupUsage{}, errNotLinux }

func ownGroup(*exec.Cmd) {}

func signalGroup(int, syscall.Signal) error { return errNotLinux }
