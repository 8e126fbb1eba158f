package paging

import (
	"math"
	"testing"
)

func TestOffset(t *testing.T) {
	for _, c := range []struct{ page, limit, want int }{
		{1, 20, 0},
		{2, 20, 20},
		{3, 7, 14},
		{0, 20, 0},  // below the first page is the first page
		{-5, 20, 0}, // likewise
		{4, 0, 0},   // unpaged
		{4, -1, 0},  // unpaged (evals criteria ask for all with limit < 0)
		{1_000_000, 100, 99_999_900},
		{math.MaxInt, 100, math.MaxInt}, // would overflow: past the end, never wraps
		{math.MaxInt/100 + 2, 100, math.MaxInt},
		{math.MaxInt/100 + 1, 100, math.MaxInt / 100 * 100},
		{2, math.MaxInt, math.MaxInt},
		{3, math.MaxInt, math.MaxInt},
	} {
		if got := Offset(c.page, c.limit); got != c.want {
			t.Errorf("Offset(%d, %d) = %d, want %d", c.page, c.limit, got, c.want)
		}
		if got := Offset(c.page, c.limit); got < 0 {
			t.Errorf("Offset(%d, %d) = %d is negative", c.page, c.limit, got)
		}
	}
}

func TestPages(t *testing.T) {
	for _, c := range []struct{ total, limit, want int }{
		{0, 20, 0},
		{1, 20, 1},
		{20, 20, 1},
		{21, 20, 2},
		{5, 0, 5},
		{math.MaxInt, 1, math.MaxInt}, // (total+limit-1)/limit would overflow here
		{math.MaxInt, 2, math.MaxInt/2 + 1},
	} {
		if got := Pages(c.total, c.limit); got != c.want {
			t.Errorf("Pages(%d, %d) = %d, want %d", c.total, c.limit, got, c.want)
		}
	}
}

func TestPageOf(t *testing.T) {
	for _, c := range []struct{ offset, limit, want int }{
		{0, 20, 1},
		{19, 20, 1},
		{20, 20, 2},
		{45, 20, 3},
		{45, 0, 1},
		{-3, 20, 1},
	} {
		if got := PageOf(c.offset, c.limit); got != c.want {
			t.Errorf("PageOf(%d, %d) = %d, want %d", c.offset, c.limit, got, c.want)
		}
	}
	// Offset and PageOf are inverse on page starts.
	for page := 1; page < 50; page++ {
		if got := PageOf(Offset(page, 7), 7); got != page {
			t.Errorf("PageOf(Offset(%d, 7), 7) = %d", page, got)
		}
	}
}
