// Command retrieval measures retrieval quality on a test collection.
//
// With -service (the default for the CISI collection), the collection is
// loaded through a real agentry server of this process (SQLite, and
// PostgreSQL when a URL is given), every query is searched through the
// knowledge-base search extension, and nDCG@10 and recall@10 are printed
// beside those of a textbook BM25 computed in the same run.
//
// Without it, the in-process evaluation of the project's own set runs:
// BM25, the offline embedder's vectors, their fusion and the offline
// reranker, with no database.
//
//	go run ./bench/retrieval -dir ../shared/datasets/cisi
//	go run ./bench/retrieval -dir ../shared/datasets/cisi -postgres "$SERVICE_TEST_DATABASE_URL"
//	go run ./bench/retrieval -dir path/to/beir-collection -service
//	go run ./bench/retrieval                          # the project's own set, in process
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/knowledge/evalset"
)

func main() {
	dir := flag.String("dir", "internal/knowledge/evalset/testdata", "collection directory: CISI (CISI.ALL, CISI.QRY, CISI.REL) or the BEIR layout")
	split := flag.String("split", "test", "qrels split of a BEIR collection: qrels/<split>.tsv")
	service := flag.Bool("service", false, "load the collection through an agentry server and search through its API (always for CISI)")
	sqlite := flag.Bool("sqlite", true, "with -service: measure on SQLite")
	postgres := flag.String("postgres", "", "with -service: also measure on this PostgreSQL database (a schema of its own is created and dropped)")
	model := flag.String("embedding-model", "", "with -service: the sources' embedding model (default: the offline embedder); the server's model configuration comes from the environment as for agentry serve")
	flag.Parse()

	start := time.Now()
	var c *evalset.Collection
	var err error
	if evalset.IsCISI(*dir) {
		c, err = evalset.LoadCISI(*dir)
		*service = true
	} else {
		c, err = evalset.Load(*dir, *split)
	}
	if err != nil {
		fail(err)
	}
	if *service {
		ctx := context.Background()
		if *sqlite {
			if err := measure(ctx, "SQLite", "", *model, c); err != nil {
				fail(err)
			}
		}
		if *postgres != "" {
			if err := measure(ctx, "PostgreSQL", *postgres, *model, c); err != nil {
				fail(err)
			}
		}
		return
	}
	r := evalset.Evaluate(c)
	fmt.Printf("collection %s: %d documents, %d judged queries (%s, GOMAXPROCS %d, %.1fs)\n",
		*dir, len(c.Docs), r.Queries, runtime.GOARCH, runtime.GOMAXPROCS(0), time.Since(start).Seconds())
	for _, m := range evalset.Methods {
		fmt.Printf("  %-13s nDCG@10 %.4f\n", m, r.NDCG[m])
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "retrieval:", err)
	os.Exit(1)
}

// measure loads c into a server on one database and prints the figures.
func measure(ctx context.Context, dbName, databaseURL, model string, c *evalset.Collection) error {
	in, err := startInstance(ctx, dbName, databaseURL, model, c)
	if err != nil {
		return fmt.Errorf("%s: %w", dbName, err)
	}
	defer in.stop()
	fmt.Printf("%s: %d documents loaded through the API and indexed in %.1fs; %d judged queries; %s, GOMAXPROCS %d\n",
		dbName, len(c.Docs), in.loadFor.Seconds(), len(c.Queries), runtime.GOARCH, runtime.GOMAXPROCS(0))
	tb := evalset.NewTextbook(c.Docs)
	base := score(c, func(q string) ([]string, error) { return tb.Search(q, 10), nil })
	fmt.Printf("  %-40s nDCG@10 %.4f  recall@10 %.4f\n", "textbook BM25 (same run)", base.ndcg, base.recall)
	var defaults run
	for _, cf := range configs {
		if cf.settings != nil {
			if err := in.call("PUT", "/knowledge_bases/"+in.kb+"/search-settings", cf.settings, nil); err != nil {
				return err
			}
		}
		var lat []time.Duration
		r := score(c, func(q string) ([]string, error) {
			t0 := time.Now()
			docs, err := in.search(q, cf.extra, 10)
			lat = append(lat, time.Since(t0))
			return docs, err
		})
		if cf.settings != nil {
			if err := in.call("PUT", "/knowledge_bases/"+in.kb+"/search-settings", map[string]any{"reset": []string{"mode", "vector_weight", "candidate_depth", "feedback", "reranker_model"}}, nil); err != nil {
				return err
			}
		}
		if r.err != nil {
			return r.err
		}
		if cf.name == defaultsName {
			defaults = r
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("  %-40s nDCG@10 %.4f  recall@10 %.4f  %.3f× BM25  (HTTP p50 %.1f ms)\n", cf.name, r.ndcg, r.recall, r.ndcg/base.ndcg,
			float64(lat[len(lat)/2].Microseconds())/1000)
	}
	// The vector weight chosen on other queries: 5 folds, each scored with
	// the weight best on the other four.
	var grid []run
	for _, w := range cvWeights {
		mode := "hybrid"
		if w == 0 {
			mode = "full_text"
		}
		r := score(c, func(q string) ([]string, error) {
			return in.search(q, map[string]any{"mode": mode, "vector_weight": w}, 10)
		})
		if r.err != nil {
			return r.err
		}
		grid = append(grid, r)
	}
	var row []string
	for i, w := range cvWeights {
		row = append(row, fmt.Sprintf("%g: %.4f", w, grid[i].ndcg))
	}
	fmt.Printf("  %-40s %s\n", "nDCG@10 by vector weight (0: full text)", strings.Join(row, ", "))
	cv, chosen := crossValidate(c, grid, 5)
	fmt.Printf("  %-40s nDCG@10 %.4f  (%.3f× BM25); weights chosen per fold %v of %v\n", "vector weight cross-validated (5 folds)",
		cv, cv/base.ndcg, chosen, cvWeights)
	fmt.Printf("  defaults: %.3f× the same-run BM25\n", defaults.ndcg/base.ndcg)
	return nil
}

// run is a method's mean figures over the judged queries, and per query.
type run struct {
	ndcg, recall float64
	perQuery     map[string]float64
	err          error
}

func score(c *evalset.Collection, search func(string) ([]string, error)) run {
	r := run{perQuery: map[string]float64{}}
	for _, q := range c.Queries {
		docs, err := search(q.Text)
		if err != nil {
			r.err = err
			return r
		}
		n := evalset.NDCG(docs, c.Qrels[q.ID], 10)
		r.perQuery[q.ID] = n
		r.ndcg += n
		r.recall += evalset.Recall(docs, c.Qrels[q.ID], 10)
	}
	r.ndcg /= float64(len(c.Queries))
	r.recall /= float64(len(c.Queries))
	return r
}

// crossValidate splits the queries into k folds (in order of id, round
// robin); each fold is scored with the grid point best on the others. It
// answers the mean nDCG@10 over all queries and the point each fold chose.
func crossValidate(c *evalset.Collection, grid []run, k int) (float64, []float64) {
	ids := make([]string, len(c.Queries))
	for i, q := range c.Queries {
		ids[i] = q.ID
	}
	sort.Strings(ids)
	var total float64
	var chosen []float64
	for f := 0; f < k; f++ {
		best, bestScore := 0, -1.0
		for g, r := range grid {
			var s float64
			for i, id := range ids {
				if i%k != f {
					s += r.perQuery[id]
				}
			}
			if s > bestScore+1e-12 {
				best, bestScore = g, s
			}
		}
		chosen = append(chosen, cvWeights[best])
		for i, id := range ids {
			if i%k == f {
				total += grid[best].perQuery[id]
			}
		}
	}
	return total / float64(len(ids)), chosen
}

// cvWeights are the vector weights cross-validation chooses from (0 is
// full text alone).
var cvWeights = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7}

type config struct {
	name     string
	extra    map[string]any // fields of the search request
	settings map[string]any // search settings set for the run, reset after
}

const defaultsName = "service, knowledge base defaults"

var configs = []config{
	{defaultsName, nil, nil},
	{"full text only", map[string]any{"mode": "full_text"}, nil},
	{"vectors only", map[string]any{"mode": "vector"}, nil},
	{"defaults + RM3 feedback", map[string]any{"feedback": true}, nil},
	{"full text + RM3 feedback", map[string]any{"mode": "full_text", "feedback": true}, nil},
	{"defaults + offline reranker", nil, map[string]any{"reranker_model": "offline"}},
}
