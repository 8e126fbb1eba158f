package regressions

import (
	"strings"
	"testing"
)

func TestSimilarity(t *testing.T) {
	long := strings.Repeat("alpha beta ", 500)
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"same", "same", 1},
		{"kitten", "sitting", 0.571}, // 3 edits over 7
		{"abc", "", 0},
		{"héllo", "hello", 0.8}, // runes, not bytes
		{long, long + "gamma", 0.667},
	} {
		if got := Similarity(c.a, c.b); got != c.want {
			t.Errorf("Similarity(%.20q, %.20q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
