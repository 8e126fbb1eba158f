package definition

import (
	"reflect"
	"testing"
)

func TestSimilarity(t *testing.T) {
	if Similarity("Support KB", "support-kb") != 1 {
		t.Error("normalisation")
	}
	if Similarity("", "") != 1 || Similarity("a", "") != 0 {
		t.Error("empty names")
	}
	ordered := []string{"Support KB (old)", "Support Knowledge Base", "Sales playbook", "Zebra"}
	prev := 2.0
	for _, n := range ordered {
		s := Similarity("Support KB", n)
		if s > prev {
			t.Errorf("%q scored %v, above the previous %v", n, s, prev)
		}
		prev = s
	}
	if a, b := Similarity("abc", "xyz"), Similarity("xyz", "abc"); a != b {
		t.Error("not symmetric")
	}
}

func TestRankAlternatives(t *testing.T) {
	desc := "faq"
	cands := []Candidate{
		{ID: "3", Name: "Marketing assets"},
		{ID: "2", Name: "Support KB (old)", Description: &desc},
		{ID: "1", Name: "support kb"},
		{ID: "4", Name: "Support"},
	}
	got := RankAlternatives("Support KB", cands, 2, DefaultMinSimilarity)
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ID)
	}
	if !reflect.DeepEqual(ids, []string{"1", "2"}) {
		t.Errorf("ranked %v", ids)
	}
	all := RankAlternatives("", cands, 0, DefaultMinSimilarity)
	if len(all) != 4 || all[0].Name != "Support" {
		t.Errorf("unnamed ref lists every candidate by name: %+v", all)
	}
}
