// Package ledgerrow is the billing area's credit ledger (credit_ledger)
// as other areas reach it: the accounts area records a new account's
// opening balance in the transaction that creates it (Record), and the
// alerts area reads what accounts spent (Spent, Spenders).
//
// It is a package of its own, beside the billing service, because the
// accounts area (internal/accounts/directory), which the billing service
// imports for the balance on the account's row, writes the opening
// balance here: a leaf that imports neither keeps that one cycle out.
// Each function takes the caller's querier, a pool or a transaction. Only
// the billing area (its repository and this package) names the ledger
// (archtest's TestAreasOwnTheirTables).
package ledgerrow
