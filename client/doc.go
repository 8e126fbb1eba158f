// Package client is the Go client of the Agentry HTTP API, and the only
// package of this repository meant to be imported by other programs. It is
// a module of its own (client/go.mod) and imports nothing of the server,
// so a program importing it builds none of the server's dependencies.
//
// It owns the conventions every call follows: credentials (an API key, a
// bearer token or token function, or an SSO login from ~/.service/config),
// the X-Account-Id and Service-Version headers, typed errors, lists and
// their pages in every response shape the API has used, server-sent event
// streams with resumption, polling, streamed uploads and downloads, and
// retries of 429 and 503 answers as Retry-After asks (RetryPolicy).
// Each API area adds one file of typed methods on top of these.
//
//	c, err := client.New(client.WithAPIKey(os.Getenv("MY_KEY")))
//	if err != nil { … }
//	me, err := c.Me(ctx)
package client
