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
// those transactions whole. The opening credits are recorded in the
// billing area's ledger through its leaf package, ledgerrow.
//
// Only this package names the three tables (archtest's
// TestAreasOwnTheirTables). Other areas ask it what they need
// (repo_asked.go), in their own transactions where the question belongs
// to a write: the authenticator a key's account kind and member role, the
// alerts their people, outbound mail the first owner's address, the model
// defaults the account's default model, billing the balance on the
// account's row; and areas that bound what an account creates lock its
// row before counting (LockAccount).
package directory
