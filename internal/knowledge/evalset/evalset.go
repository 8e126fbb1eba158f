// Package evalset owns the retrieval evaluation: loading a test collection
// (BEIR layout: corpus.jsonl, queries.jsonl, qrels/*.tsv; TREC qrels also
// read), running lexical (BM25), vector (offline embedder) and fused
// (reciprocal rank fusion) retrieval over it in process, and scoring the
// rankings with nDCG@10 on graded judgments. The collection under testdata
// steers development; any public collection in the same layout can be
// measured with cmd/retrieval-eval.
package evalset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Doc is one passage of the corpus.
type Doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	// Authors, when the collection has them (CISI), go to the passage's
	// metadata.
	Authors string `json:"authors,omitempty"`
}

// Query is one query.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Collection is a corpus, queries and graded judgments
// (Qrels[query][doc] = grade; absent means 0).
type Collection struct {
	Docs    []Doc
	Queries []Query
	Qrels   map[string]map[string]int
}

// Limits keep a mistaken path from loading something enormous.
const (
	maxLine = 4 << 20
)

// Load reads the collection in dir. The qrels file is qrels/test.tsv, or
// the one named by split (qrels/<split>.tsv). Queries without judgments
// are dropped, as trec_eval and BEIR do.
func Load(dir, split string) (*Collection, error) {
	if split == "" {
		split = "test"
	}
	c := &Collection{Qrels: map[string]map[string]int{}}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(raw []byte) error {
		var d struct {
			ID    json.RawMessage `json:"_id"`
			Title string          `json:"title"`
			Text  string          `json:"text"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
		c.Docs = append(c.Docs, Doc{ID: rawID(d.ID), Title: d.Title, Text: d.Text})
		return nil
	}); err != nil {
		return nil, err
	}
	var queries []Query
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(raw []byte) error {
		var q struct {
			ID   json.RawMessage `json:"_id"`
			Text string          `json:"text"`
		}
		if err := json.Unmarshal(raw, &q); err != nil {
			return err
		}
		queries = append(queries, Query{ID: rawID(q.ID), Text: q.Text})
		return nil
	}); err != nil {
		return nil, err
	}
	if err := c.readQrels(filepath.Join(dir, "qrels", split+".tsv")); err != nil {
		return nil, err
	}
	for _, q := range queries {
		if len(c.Qrels[q.ID]) > 0 {
			c.Queries = append(c.Queries, q)
		}
	}
	if len(c.Docs) == 0 || len(c.Queries) == 0 {
		return nil, fmt.Errorf("evalset: %s has %d documents and %d judged queries", dir, len(c.Docs), len(c.Queries))
	}
	return c, nil
}

// rawID accepts ids written as strings or numbers.
func rawID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		if err := fn(b); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

// readQrels reads "query doc grade" (BEIR, with or without a header) or
// "query iteration doc grade" (TREC) lines, tab- or space-separated.
func (c *Collection) readQrels(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ParseQrels(f, c.Qrels)
}

// ParseQrels adds the judgments read from r to into.
func ParseQrels(r io.Reader, into map[string]map[string]int) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		var q, d, g string
		switch len(fields) {
		case 3:
			q, d, g = fields[0], fields[1], fields[2]
		case 4:
			q, d, g = fields[0], fields[2], fields[3]
		default:
			return fmt.Errorf("qrels line %d: want 3 or 4 fields, got %d", line, len(fields))
		}
		grade, err := strconv.Atoi(g)
		if err != nil {
			if line == 1 { // header
				continue
			}
			return fmt.Errorf("qrels line %d: grade %q is not an integer", line, g)
		}
		if into[q] == nil {
			into[q] = map[string]int{}
		}
		if grade > 0 {
			into[q][d] = grade
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return nil
}

// NDCG returns nDCG@k of ranking against graded judgments, with linear
// gains (trec_eval's and BEIR's definition): DCG = Σ grade_i / log2(i+1).
func NDCG(ranking []string, judged map[string]int, k int) float64 {
	var dcg float64
	for i, id := range ranking {
		if i >= k {
			break
		}
		if g := judged[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	grades := make([]int, 0, len(judged))
	for _, g := range judged {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	var ideal float64
	for i, g := range grades {
		if i >= k {
			break
		}
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// ErrNoQueries is returned when nothing can be scored.
var ErrNoQueries = errors.New("evalset: no judged queries")
