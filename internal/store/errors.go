package store

import "errors"

var (
	// ErrNotFound means no row in the caller's account matched; handlers answer 404
	// whether the row is absent or belongs to another account.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a uniqueness or state rule refused the write.
	ErrConflict = errors.New("conflict")
	// ErrInsufficientCredits means a debit would take a balance below zero.
	ErrInsufficientCredits = errors.New("insufficient credits")
)
