package evalset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentry/agentry/internal/knowledge/lexical"
)

// cisiDir finds shared/datasets/cisi by walking up from the working
// directory, as the tests find shared/reference.
func cisiDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "datasets", "cisi")
		if IsCISI(p) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/datasets/cisi not found above the working directory")
		}
		dir = parent
	}
}

// TestCISI checks the collection's loader against its README (1,460
// documents, 76 judged queries, the textbook BM25 at 0.295), and that the
// knowledge search's full text (BM25F over the abstract with the title as
// heading, in process) ranks well above that baseline: the quality bar
// bench/retrieval measures through the service.
func TestCISI(t *testing.T) {
	c, err := LoadCISI(cisiDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 1460 || len(c.Queries) != 76 {
		t.Fatalf("%d documents, %d judged queries", len(c.Docs), len(c.Queries))
	}
	if d := c.Docs[0]; d.ID != "1" || d.Title != "18 Editions of the Dewey Decimal Classifications" || d.Authors != "Comaromi, J.P." {
		t.Fatalf("first document %+v", d)
	}
	tb := NewTextbook(c.Docs)
	ix := lexical.New()
	for i, d := range c.Docs {
		ix.Add(lexical.Doc{Key: int64(i), Group: d.ID, Body: d.Text, Heading: d.Title})
	}
	var base, full float64
	for _, q := range c.Queries {
		base += NDCG(tb.Search(q.Text, 10), c.Qrels[q.ID], 10)
		terms := lexical.ParseQuery(q.Text)
		var st lexical.Stats
		ix.AddStats(&st, terms)
		var ids []string
		for _, h := range ix.Search(lexical.NewPlan(terms, st, lexical.DefaultParams), nil, 10, nil) {
			ids = append(ids, h.Group)
		}
		full += NDCG(ids, c.Qrels[q.ID], 10)
	}
	n := float64(len(c.Queries))
	base, full = base/n, full/n
	t.Logf("textbook BM25 %.4f, BM25F %.4f (%.3f×)", base, full, full/base)
	if base < 0.29 || base > 0.30 {
		t.Errorf("textbook BM25 %.4f, the README says 0.295", base)
	}
	if full < 1.05*base {
		t.Errorf("BM25F %.4f is not 1.05× the textbook BM25 %.4f", full, base)
	}
}
