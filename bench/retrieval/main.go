// Command retrieval measures retrieval quality on a test collection in the
// BEIR layout (corpus.jsonl, queries.jsonl, qrels/<split>.tsv): nDCG@10 of
// BM25 alone, the offline embedder's vectors alone, their reciprocal rank
// fusion, and the fusion reordered by the offline reranker.
//
//	go run ./bench/retrieval                          # the project's own set
//	go run ./bench/retrieval -dir ~/beir/nfcorpus     # a public collection
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/agentry/agentry/internal/knowledge/evalset"
)

func main() {
	dir := flag.String("dir", "internal/knowledge/evalset/testdata", "collection directory (BEIR layout)")
	split := flag.String("split", "test", "qrels split: qrels/<split>.tsv")
	flag.Parse()

	start := time.Now()
	c, err := evalset.Load(*dir, *split)
	if err != nil {
		fmt.Fprintln(os.Stderr, "retrieval:", err)
		os.Exit(1)
	}
	r := evalset.Evaluate(c)
	fmt.Printf("collection %s: %d documents, %d judged queries (%s, GOMAXPROCS %d, %.1fs)\n",
		*dir, len(c.Docs), r.Queries, runtime.GOARCH, runtime.GOMAXPROCS(0), time.Since(start).Seconds())
	for _, m := range evalset.Methods {
		fmt.Printf("  %-13s nDCG@10 %.4f\n", m, r.NDCG[m])
	}
}
