// Package directory is the accounts area's repository: the accounts, the
// users and which users belong to which account with what role (the
// tables accounts, users and memberships; the area's service is package
// accounts). It is a package of its own because the authenticator
// (package auth) reads users and roles to know who a request is, and the
// accounts service imports auth for the principal it acts for: here,
// both can import it.
//
// Signing up writes all three tables in one transaction (CreateUser: the
// personal account with its opening credits, the user, the owner's
// membership), and so does creating an organization; the functions keep
// those transactions whole. Other areas still lock an account's row in
// their own transactions through store.LockAccount.
package directory
