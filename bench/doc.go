// Package bench holds the in-process benchmarks of the request path
// (go test -bench . ./bench); the load tools are commands below it, such as
// bench/load (go run ./bench/load), which drives GET /me on a real
// in-process server over loopback and compares it with a bare net/http
// handler.
package bench
