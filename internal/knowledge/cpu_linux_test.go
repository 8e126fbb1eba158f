//go:build linux

package knowledge

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling OS thread so far
// (CLOCK_THREAD_CPUTIME_ID, kept by the scheduler to the nanosecond): with
// the goroutine locked to its thread, the difference around a search is
// what the search cost in CPU, whatever the machine's load.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
