// Package realclient runs the public Go client (the client module) against
// a real server on each database: every operation it wraps, the
// conventions that need a server (credentials, headers, versions, token
// refresh), streams that resume, and downloads. The client module itself
// imports nothing of the server, so these suites live here, beside the
// server they start; the client's own tests use loopback stand-ins.
package realclient
