package solutions

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The planner reads text a tenant controls: it must never panic, and what
// it proposes must stay within its assistant's resource kinds and bounds.
func FuzzOfflinePlanner(f *testing.F) {
	for _, s := range []string{
		"Watch this RSS feed https://example.com/feed.xml and e-mail me a weekly summary",
		`Delete "Old docs" and "x"`,
		"Every Friday at 5pm summarise https://example.com for boss@example.com",
		"Post new posts from https://a.test/rss to the webhook https://hook.test/x",
		"at 99:99pm every monday tuesday", "\"\"\"", "https://", "e-mail@", "",
	} {
		f.Add(s)
	}
	lookup := func(resource, name string) (string, bool) {
		return "0190a000-0000-7000-8000-000000000001", name == "Old docs"
	}
	f.Fuzz(func(t *testing.T, input string) {
		if len(input) > MaxInputLength {
			return
		}
		for _, kind := range []string{KindSolution, KindKnowledgeBase, KindSource} {
			note, actions := Offline(kind, input, "me@example.test", lookup)
			if note == "" || !utf8.ValidString(note) && utf8.ValidString(input) {
				t.Fatalf("note %q", note)
			}
			if len(actions) > MaxActions {
				t.Fatalf("%d actions", len(actions))
			}
			for i, a := range actions {
				spec, ok := actionSpecs[a.Type]
				if !ok || !slices.Contains(allowedResources[kind], spec.resource) {
					t.Fatalf("action %d %q for %s", i+1, a.Type, kind)
				}
				b, err := json.Marshal(a.Params)
				if err != nil {
					t.Fatal(err)
				}
				var refs []int
				n, _ := normalize(a)
				refsOf(n.Params, &refs)
				for _, r := range refs {
					if r < 1 || r > i {
						t.Fatalf("action %d refers to $action_%d: %s", i+1, r, b)
					}
				}
				if strings.Contains(string(b), "00000000-0000-4000-8000") {
					t.Fatalf("a placeholder id leaked into the plan: %s", b)
				}
			}
		}
	})
}

func TestOfflineReadsCadenceAndTime(t *testing.T) {
	for in, want := range map[string]string{
		"a weekly digest":              "0 8 * * 1",
		"every friday at 5pm":          "0 17 * * 5",
		"each morning at 6:30":         "30 6 * * *",
		"every hour":                   "0 * * * *",
		"a monthly report at 12am":     "0 0 1 * *",
		"summaries of the feed please": "",
	} {
		if got := read(in).cron; got != want {
			t.Errorf("%q: cron %q, want %q", in, got, want)
		}
	}
}
