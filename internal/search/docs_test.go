package search

import (
	"strings"
	"testing"
)

func TestDocsKeywordMatchesTitlesAndSummaries(t *testing.T) {
	got := Docs("knowledge bases", "keyword", 5)
	if len(got) == 0 || got[0].Slug != "knowledge" {
		t.Fatalf("knowledge bases: %+v", got)
	}
	if got[0].Highlight != nil || got[0].Anchor != nil {
		t.Errorf("keyword results carry no highlight or anchor: %+v", got[0])
	}
	if got[0].Snippet == nil || !strings.Contains(strings.ToLower(*got[0].Snippet), "source") {
		t.Errorf("snippet is the page summary: %v", got[0].Snippet)
	}
	if got := Docs("zzzqqq", "keyword", 5); len(got) != 0 {
		t.Errorf("nonsense matched %+v", got)
	}
}

func TestDocsSemanticReadsBodies(t *testing.T) {
	got := Docs("cron expression time zone daylight saving", "semantic", 3)
	if len(got) == 0 || got[0].Slug != "schedules" {
		t.Fatalf("schedules: %+v", got)
	}
	if got[0].Highlight == nil || *got[0].Highlight == "" {
		t.Errorf("semantic results quote a sentence: %+v", got[0])
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("not ranked: %+v", got)
		}
	}
}

func TestDocsLimit(t *testing.T) {
	if got := Docs("agent", "keyword", 2); len(got) > 2 {
		t.Errorf("limit 2 gave %d", len(got))
	}
}

// Queries are a tenant's text: any of them, in either mode, answers
// without panicking, within the limit, ranked.
func FuzzDocsSearch(f *testing.F) {
	for _, s := range []string{"knowledge", "cron time zone", "", "%_\\", "ü日本", strings.Repeat("a ", 100)} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, q string, semantic bool) {
		if len(q) > 200 {
			return
		}
		mode := "keyword"
		if semantic {
			mode = "semantic"
		}
		got := Docs(q, mode, 5)
		if len(got) > 5 {
			t.Fatalf("%d results", len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Fatalf("not ranked: %+v", got)
			}
		}
	})
}
