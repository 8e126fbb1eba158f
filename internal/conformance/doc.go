// Package conformance checks the running server against the reference API
// contract (../shared/reference/openapi.json beside the checkout): which of
// the contract's operations the server implements, and that every response
// it gives — success and error, at the default and the strict version — has
// the documented status, headers and body.
//
// The contract is never copied into the project; tests locate it by walking
// up from their working directory and skip when it is absent.
//
// The exercises live in exercises_<area>_test.go files, one register call
// per operation; see docs/testing.md for the recipe.
package conformance
