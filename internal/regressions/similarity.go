package regressions

import (
	"strings"
	"unicode"
)

// maxEditRunes bounds the texts compared by edit distance: beyond it (in
// either text) the comparison falls back to word sets, linear in size.
const maxEditRunes = 4000

// Similarity says how alike two outputs are, from 0 (nothing in common) to
// 1 (equal), deterministically: 1 minus the Levenshtein distance over the
// longer length, in runes; for texts longer than maxEditRunes, the Jaccard
// index of their sets of words (lower-cased).
func Similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) > maxEditRunes || len(rb) > maxEditRunes {
		return jaccard(a, b)
	}
	longer := max(len(ra), len(rb))
	return round3(1 - float64(levenshtein(ra, rb))/float64(longer))
}

// levenshtein is the edit distance of a and b (two rows of the table).
func levenshtein(a, b []rune) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func jaccard(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	return round3(float64(inter) / float64(len(wa)+len(wb)-inter))
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// round3 keeps three decimals, so a report reads the same everywhere.
func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
