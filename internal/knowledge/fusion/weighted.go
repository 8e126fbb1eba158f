package fusion

import "math"

// Weighted fuses two scores of each candidate, both on an absolute 0–1
// scale, as (1 − w) × lexical + w × vector. lex[i] is candidate i's
// full-text score divided by the best score the query could reach (0 when
// it matches no term); vec[i] its cosine similarity (negative or NaN
// count as 0). Scores keep their meaning from query to query, so a
// threshold on the fused score drops weak results whatever the query,
// which a per-query rescaling (min-max, or rank fusion) would not: there
// the best candidate always scores 1.
func Weighted(lex, vec []float64, w float64) []float64 {
	out := make([]float64, len(lex))
	for i := range out {
		v := 0.0
		if i < len(vec) && !math.IsNaN(vec[i]) && vec[i] > 0 {
			v = math.Min(vec[i], 1)
		}
		out[i] = (1-w)*math.Max(0, math.Min(lex[i], 1)) + w*v
	}
	return out
}
