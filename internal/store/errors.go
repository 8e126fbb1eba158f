package store

import (
	"strings"

	"github.com/agentry/agentry/internal/fault"
)

// The store's errors are the fault vocabulary's sentinels, so the areas
// and the API speak one word (see package fault).
var (
	// ErrNotFound means no row in the caller's account matched; handlers answer 404
	// whether the row is absent or belongs to another account. It carries no
	// resource name: the area names it (fault.Name) where it knows which.
	ErrNotFound = fault.ErrNotFound
	// ErrConflict means a uniqueness or state rule refused the write.
	ErrConflict = fault.ErrConflict
	// ErrInsufficientCredits means a debit would take a balance below zero.
	ErrInsufficientCredits = fault.ErrNoCredits
)

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	// pgx reports SQLSTATE 23505; SQLite reports a UNIQUE or PRIMARY KEY constraint failure.
	return strings.Contains(msg, "23505") || strings.Contains(msg, "UNIQUE constraint failed") ||
		strings.Contains(msg, "constraint failed: PRIMARY KEY")
}

func isForeignKeyViolation(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "23503") || strings.Contains(msg, "FOREIGN KEY constraint failed")
}
