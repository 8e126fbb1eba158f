//go:build unix && !linux

package knowledge

import "time"

func threadCPU() time.Duration { return 0 }
