// Package bench holds the in-process benchmarks of the request path
// (go test -bench . ./bench); the load tools are commands below it, such as
// bench/load (go run ./bench/load), which drives GET /me on a real
// in-process server over loopback and compares it with a bare net/http
// handler; bench/runload (runs/s, held streams and a queued burst of runs
// against agentry serve; with -mode traces, runs/s exporting every run's
// trace to a loopback OTLP receiver against not exporting); bench/retrieval (nDCG@10 of BM25, vectors,
// their fusion and reranking on a test collection); bench/ingest (knowledge
// passages indexed per second, uploads to searchable, on SQLite with the
// offline embedder); bench/mailload (inbound mail accepted and queued per
// second from concurrent SMTP clients, none lost); bench/oversightload
// (runs/s with a PII policy and an evaluation on every step against the
// bare agent, and what a send_email step adds to a run); and bench/peers
// (go run ./bench/peers), which
// installs the LangGraph Agent Server from npm and compares the two on one
// machine, writing docs/performance.md.
package bench
