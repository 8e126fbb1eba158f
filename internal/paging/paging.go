// Package paging holds the page-number arithmetic every list shares: the
// offset a 1-based page starts at, the number of pages a total fills and the
// page an offset falls on. It imports nothing of the project, so the area
// services and the API can both use it.
package paging

import "math"

// Offset is the number of items before the 1-based page of limit items.
// A page below 1 is the first page and a limit below 1 (an unpaged list)
// starts at 0. A page so large that (page-1)*limit would overflow answers
// math.MaxInt, past the end of any list, instead of wrapping around to an
// early page.
func Offset(page, limit int) int {
	if page < 1 || limit < 1 {
		return 0
	}
	if page-1 > math.MaxInt/limit {
		return math.MaxInt
	}
	return (page - 1) * limit
}

// Pages is the number of pages of limit items that total items fill; a
// limit below 1 counts as 1.
func Pages(total, limit int) int {
	if limit < 1 {
		limit = 1
	}
	if total < 1 {
		return 0
	}
	return (total-1)/limit + 1
}

// PageOf is the 1-based page the item at offset falls on with pages of
// limit items; a limit below 1 puts everything on page 1.
func PageOf(offset, limit int) int {
	if limit < 1 || offset < 1 {
		return 1
	}
	return offset/limit + 1
}
