//go:build race

package api_test

// raceEnabled: under the race detector, inflating the 128 MiB of an
// extraction bomb takes minutes; internal/extract tests it without it.
const raceEnabled = true
