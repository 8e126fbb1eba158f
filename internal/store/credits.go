package store

import "math"

// Balances are kept in micro-credits (1e-6 credit) as integers, so that sums
// are exact and a debit is one atomic integer update on either database.
// The balance is a column of the account's row (internal/accounts/directory
// moves it); the ledger and the metered usage are the billing area's
// (internal/billing). The conversions are here, shared by both.
const microPerCredit = 1_000_000

// ToMicro converts credits to micro-credits, rounding half away from zero.
func ToMicro(credits float64) int64 { return int64(math.Round(credits * microPerCredit)) }

// FromMicro converts micro-credits to credits.
func FromMicro(micro int64) float64 { return float64(micro) / microPerCredit }
