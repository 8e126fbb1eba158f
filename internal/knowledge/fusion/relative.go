package fusion

import "math"

// Relative fuses two score lists by relative score (what Weaviate calls
// relativeScoreFusion and OpenSearch min-max normalisation with an
// arithmetic mean): each side's scores are scaled to 0–1 over the
// candidates, then combined as (1 − w) × lexical + w × vector.
//
// lex[i] is candidate i's full-text score (0 when it matches no term:
// the lexical scale starts at 0, so a candidate matching nothing gets 0
// rather than the lowest match's 1/max); vec[i] its vector similarity, or
// NaN when unknown (it counts as the lowest). Unlike rank fusion, a
// candidate far ahead on one side keeps its lead, and a weak side with a
// small w only breaks near-ties of the strong one.
func Relative(lex, vec []float64, w float64) []float64 {
	out := make([]float64, len(lex))
	var lmax float64
	vmin, vmax := math.Inf(1), math.Inf(-1)
	for i := range lex {
		lmax = math.Max(lmax, lex[i])
		if i < len(vec) && !math.IsNaN(vec[i]) {
			vmin, vmax = math.Min(vmin, vec[i]), math.Max(vmax, vec[i])
		}
	}
	for i := range out {
		var l, v float64
		if lmax > 0 {
			l = lex[i] / lmax
		}
		if i < len(vec) && !math.IsNaN(vec[i]) {
			switch {
			case vmax > vmin:
				v = (vec[i] - vmin) / (vmax - vmin)
			case vmax > 0:
				v = 1 // one distinct similarity: every candidate is the best
			}
		}
		out[i] = (1-w)*l + w*v
	}
	return out
}
