package engine

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// $.* over an object of 80,000 keys returns its values in key order; it
// took 9.9 s when the keys were insertion-sorted (see
// BenchmarkJSONPathWildcard for the time it takes now).
func TestJSONPathWildcardOverManyKeys(t *testing.T) {
	const n = 80_000
	doc := wideMap(n)
	got, ok := jsonPath(doc, "$.*")
	if !ok || len(got) != n {
		t.Fatalf("%d matches, ok %v", len(got), ok)
	}
	values := make([]int, n)
	for i, g := range got {
		values[i] = g.(int)
	}
	if !slices.IsSorted(values) || values[0] != 0 || values[n-1] != n-1 {
		t.Fatalf("values out of key order: first %v, last %v", values[:3], values[n-3:])
	}
}

// wideMap maps n keys to their rank in sorted order; they are inserted in
// reverse.
func wideMap(n int) map[string]any {
	m := make(map[string]any, n)
	for i := n - 1; i >= 0; i-- {
		m["k"+fmt.Sprintf("%06d", i)] = i
	}
	return m
}

// BenchmarkJSONPathWildcard measures $.* over objects of growing size: the
// time per key stays nearly flat (n log n), where insertion sort made it
// grow with n.
func BenchmarkJSONPathWildcard(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 80_000} {
		doc := wideMap(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if got, _ := jsonPath(doc, "$.*"); len(got) != n {
					b.Fatal(len(got))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
