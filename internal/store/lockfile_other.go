//go:build !unix

package store

// lockFile is a no-op where flock is unavailable: a single process then
// migrates before serving, which is the supported way to run there.
func lockFile(string) (func(), error) { return func() {}, nil }
