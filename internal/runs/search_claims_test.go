package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceSearchClaimsAreLexical: trace search ranks with the lexical
// embedder, so what the API description and the docs promise must match
// what it does: wording and word forms are found, paraphrases are not.
func TestTraceSearchClaimsAreLexical(t *testing.T) {
	trace := "The refund was issued to the customer's card on Monday."
	match := func(query string) bool {
		return traceScore(traceEmbedder.Embed(query), words(query), trace) > minTraceScore
	}
	if !match("refunds issued") {
		t.Error("a query sharing words (in another form) does not match")
	}
	if match("money back") {
		t.Error("a paraphrase sharing no words matched; the description would need to promise it")
	}

	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "runs.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "## Searching traces")
	if i < 0 {
		t.Fatal("docs/runs.md has no trace search section")
	}
	section := text[i:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	for name, claim := range map[string]string{"docs/runs.md": section, "the API description": SearchDescription} {
		lc := strings.ToLower(claim)
		for _, bad := range []string{"semantic", "similarity of meaning", "paraphrases match", "both paraphrases"} {
			if strings.Contains(lc, bad) {
				t.Errorf("%s claims %q of a lexical search", name, bad)
			}
		}
		if !strings.Contains(lc, "lexical") || !strings.Contains(lc, "paraphrase") {
			t.Errorf("%s does not say the search is lexical and misses paraphrases", name)
		}
	}
}
