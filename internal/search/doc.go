// Package search owns the two searches of the API: account search (GET
// /search), one query over every resource type of the caller's account, and
// documentation search (GET /docs-search) over the Markdown pages embedded
// in the binary.
package search
