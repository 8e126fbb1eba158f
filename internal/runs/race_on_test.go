//go:build race

package runs

// raceEnabled: under the race detector SQLite's engine, itself Go code, is
// instrumented too, and seeding 100,000 runs takes three minutes of CI's
// race pass while checking no concurrency at all.
const raceEnabled = true
