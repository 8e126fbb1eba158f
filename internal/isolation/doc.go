// Package isolation proves tenants cannot reach each other: a table of
// cases, one or more per operation, in which a second account's key tries
// the operation on the first account's resources and must get a 404 (or an
// empty list, or — for operations on the caller's own account — act on its
// own account only). Each case runs again with the first account's id in
// X-Account-Id, which an API key must ignore. The suite fails when an
// operation the server implements has no case.
//
// It also holds the revocation test: a key revoked on one replica stops
// working on every replica within five seconds.
//
// Cases live in cases_<area>_test.go, one register call per operation; see
// docs/testing.md for the recipe.
package isolation
