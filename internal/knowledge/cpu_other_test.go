//go:build !unix

package knowledge

import "time"

func cpuTime() time.Duration { return 0 }

func threadCPU() time.Duration { return 0 }
