//go:build race

package engine_test

// raceEnabled: the race detector makes sync.Pool drop what it is given, so
// regexp allocates a matcher per match and allocation counts mean nothing.
const raceEnabled = true
