package regressions

import "github.com/agentry/agentry/internal/store"

// Credits rounds a figure in credits to the ledger's precision (a
// micro-credit), as the credits an item spent are reported.
func Credits(c float64) float64 { return store.FromMicro(store.ToMicro(c)) }
