package fusion

import (
	"math"
	"slices"
	"testing"
)

func TestRRF(t *testing.T) {
	lex := []string{"a", "b", "c"}
	vec := []string{"c", "d", "a"}
	got := RRF(60, lex, vec)
	// a: 1/61 + 1/63, c: 1/63 + 1/61 (tie, a seen first), b: 1/62, d: 1/62 (tie, b first).
	if ids := IDs(got); !slices.Equal(ids, []string{"a", "c", "b", "d"}) {
		t.Fatalf("order %v", ids)
	}
	if math.Abs(got[0].Score-(1.0/61+1.0/63)) > 1e-12 {
		t.Errorf("score %v", got[0].Score)
	}
	// An item high in both lists beats one at the top of only one.
	got = RRF(0, []string{"x", "y"}, []string{"z", "y"})
	if got[0].ID != "y" {
		t.Errorf("consensus not first: %v", IDs(got))
	}
	// Duplicates within a list count once, at their best rank.
	got = RRF(60, []string{"p", "p", "q"})
	if len(got) != 2 || got[0].Score != 1.0/61 || got[1].Score != 1.0/63 {
		t.Errorf("duplicates: %+v", got)
	}
	if len(RRF(60)) != 0 || len(RRF(60, nil, []string{})) != 0 {
		t.Error("empty input")
	}
}

func TestWeightedRRF(t *testing.T) {
	lex := []string{"a", "b"}
	vec := []string{"b", "a"}
	if ids := IDs(WeightedRRF(60, []float64{2, 1}, lex, vec)); ids[0] != "a" {
		t.Errorf("heavier lexical list should win: %v", ids)
	}
	if ids := IDs(WeightedRRF(60, []float64{1, 2}, lex, vec)); ids[0] != "b" {
		t.Errorf("heavier vector list should win: %v", ids)
	}
	// Missing weights count as 1.
	if got := WeightedRRF(60, nil, lex); got[0].Score != 1.0/61 {
		t.Errorf("default weight: %v", got)
	}
}

func TestWeighted(t *testing.T) {
	nan := math.NaN()
	got := Weighted([]float64{0.8, 0.4, 0, 2}, []float64{0.2, 0.6, nan, -0.5}, 0.25)
	want := []float64{0.75*0.8 + 0.25*0.2, 0.75*0.4 + 0.25*0.6, 0, 0.75}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// Weight 0 is the lexical order, 1 the vector order.
	if g := Weighted([]float64{0.3, 0.1}, []float64{0.1, 0.9}, 0); g[0] <= g[1] {
		t.Errorf("w=0: %v", g)
	}
	if g := Weighted([]float64{0.3, 0.1}, []float64{0.1, 0.9}, 1); g[0] >= g[1] {
		t.Errorf("w=1: %v", g)
	}
	if len(Weighted(nil, nil, 0.5)) != 0 {
		t.Error("empty")
	}
}
