package definition

import (
	"sort"
	"strings"
	"unicode"
)

// Name similarity ranks the caller's own resources as replacements for
// references an import could not resolve ("Support KB" in the source account
// ≈ "support-kb" here). Names are normalised (case, punctuation, spacing)
// and compared two ways: an edit-distance ratio catches typos and small
// edits, trigram overlap catches reordered or partly shared words. The
// score is their mean, raised when one name contains the other, and 1 for
// names equal after normalisation.

// Similarity returns a score in [0, 1] for two names.
func Similarity(a, b string) float64 {
	na, nb := normalizeName(a), normalizeName(b)
	if na == "" && nb == "" {
		return 1
	}
	if na == "" || nb == "" {
		return 0
	}
	if na == nb {
		return 1
	}
	score := (levenshteinRatio(na, nb) + trigramJaccard(na, nb)) / 2
	// One name inside the other ("Support" / "Support KB (old)") is a
	// strong hint the edit measures undervalue when lengths differ a lot.
	short, long := na, nb
	if len([]rune(short)) > len([]rune(long)) {
		short, long = long, short
	}
	if n := len([]rune(short)); n >= 3 && strings.Contains(long, short) {
		score = max(score, 0.5+0.5*float64(n)/float64(len([]rune(long))))
	}
	return score
}

func normalizeName(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

func levenshteinRatio(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb))
	if n == 0 {
		return 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(rb)])/float64(n)
}

func trigrams(s string) map[string]bool {
	r := []rune("  " + s + " ")
	set := map[string]bool{}
	for i := 0; i+3 <= len(r); i++ {
		set[string(r[i:i+3])] = true
	}
	return set
}

func trigramJaccard(a, b string) float64 {
	ta, tb := trigrams(a), trigrams(b)
	inter := 0
	for t := range ta {
		if tb[t] {
			inter++
		}
	}
	union := len(ta) + len(tb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Candidate is one of the caller's resources that could replace an
// unresolved reference.
type Candidate struct {
	ID          string
	Name        string
	Description *string
}

// Alternative is an element of unresolved_refs[].alternatives.
type Alternative struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
	Score       float64 `json:"-"`
}

// DefaultMinSimilarity drops candidates that share little more than a
// letter or two with the wanted name.
const DefaultMinSimilarity = 0.35

// RankAlternatives orders candidates by similarity to name, best first,
// dropping those below minScore and keeping at most limit (all when limit
// <= 0). Ties go to the shorter name, then by name and id, so the answer is
// deterministic. With an empty name (the manifest did not say) nothing can
// be compared and the candidates come back by name.
func RankAlternatives(name string, candidates []Candidate, limit int, minScore float64) []Alternative {
	out := make([]Alternative, 0, len(candidates))
	for _, c := range candidates {
		score := 0.0
		if name != "" {
			score = Similarity(name, c.Name)
			if score < minScore {
				continue
			}
		}
		out = append(out, Alternative{ID: c.ID, Name: c.Name, Description: c.Description, Score: score})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if len(a.Name) != len(b.Name) {
			return len(a.Name) < len(b.Name)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
