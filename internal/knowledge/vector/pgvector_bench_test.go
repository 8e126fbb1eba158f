package vector

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentry/agentry/internal/store/storetest"
)

// BenchmarkPgvectorHNSW measures pgvector's HNSW index on the same text
// vectors as BenchmarkSearch100k/text, so the two can be compared. It runs
// only when SERVICE_TEST_DATABASE_URL names a PostgreSQL database with the
// vector extension available, in a schema of its own that it drops after.
// PGVECTOR_EF_SEARCH sets hnsw.ef_search, one value or a comma-separated
// list measured on one build (default 100; pgvector's own default is 40); PGVECTOR_M and PGVECTOR_EF_CONSTRUCTION set the index's
// build parameters (pgvector's defaults, 16 and 64, when unset).
func BenchmarkPgvectorHNSW(b *testing.B) {
	url := os.Getenv(storetest.EnvDatabaseURL)
	if url == "" {
		b.Skip(storetest.EnvDatabaseURL + " is not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		b.Skipf("pgvector is not available: %v", err)
	}
	schema := fmt.Sprintf("bench_pgvector_%d", time.Now().UnixNano())
	mustExec := func(sql string, args ...any) {
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE SCHEMA " + schema)
	defer func() { _, _ = conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") }()
	mustExec("CREATE TABLE " + schema + ".chunks (id text PRIMARY KEY, embedding vector(384) NOT NULL)")

	n := benchSize()
	r := rand.New(rand.NewPCG(42, uint64(len("text"))))
	data, queries := textCorpus(r, n, 80, 200, 12)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "chunk-" + strconv.Itoa(i)
	}
	for lo := 0; lo < n; lo += 1000 {
		hi := min(lo+1000, n)
		lits := make([]string, 0, hi-lo)
		for _, v := range data[lo:hi] {
			lits = append(lits, vectorLiteral(v))
		}
		mustExec("INSERT INTO "+schema+".chunks SELECT unnest($1::text[]), unnest($2::text[])::vector", ids[lo:hi], lits)
	}
	mustExec("SET maintenance_work_mem = '512MB'")
	start := time.Now()
	with := ""
	m, _ := strconv.Atoi(os.Getenv("PGVECTOR_M"))
	efc, _ := strconv.Atoi(os.Getenv("PGVECTOR_EF_CONSTRUCTION"))
	if m > 0 && efc > 0 {
		with = fmt.Sprintf(" WITH (m = %d, ef_construction = %d)", m, efc)
	}
	mustExec("CREATE INDEX ON " + schema + ".chunks USING hnsw (embedding vector_cosine_ops)" + with)
	build := time.Since(start)
	var indexBytes int64
	if err := conn.QueryRow(ctx, `SELECT pg_relation_size(c.oid) FROM pg_class c
		JOIN pg_index i ON i.indexrelid = c.oid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = $1::regclass AND a.amname = 'hnsw'`, schema+".chunks").Scan(&indexBytes); err != nil {
		b.Fatal(err)
	}
	// Exact answers, computed here by a full scan of the same vectors.
	exact := newFlat(data)
	search := func(q []float32) []string {
		rows, err := conn.Query(ctx, "SELECT id FROM "+schema+".chunks ORDER BY embedding <=> $1::vector LIMIT 10", vectorLiteral(q))
		if err != nil {
			b.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	// PGVECTOR_EF_SEARCH may list several breadths (comma separated): the
	// index is built once and each is measured.
	efs := []int{100}
	if s := os.Getenv("PGVECTOR_EF_SEARCH"); s != "" {
		efs = nil
		for _, p := range strings.Split(s, ",") {
			if v, err := strconv.Atoi(p); err == nil && v > 0 {
				efs = append(efs, v)
			}
		}
	}
	for _, ef := range efs {
		b.Run("ef_search="+strconv.Itoa(ef), func(b *testing.B) {
			mustExec(fmt.Sprintf("SET hnsw.ef_search = %d", ef))
			found := 0
			for _, q := range queries {
				want := map[string]bool{}
				for _, i := range exact.top(q, 10) {
					want[ids[i]] = true
				}
				for _, id := range search(q) {
					if want[id] {
						found++
					}
				}
			}
			recall := float64(found) / float64(10*len(queries))
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if len(search(queries[i%len(queries)])) != 10 {
					b.Fatal("short result")
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			pct := func(p float64) float64 { return float64(lat[int(math.Ceil(p*float64(len(lat))))-1]) / 1e6 }
			b.ReportMetric(recall, "recall@10")
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			b.ReportMetric(float64(indexBytes)/(1<<20), "index-MB")
			b.ReportMetric(build.Seconds(), "build-s")
			b.ReportMetric(float64(m), "m")
			b.ReportMetric(float64(efc), "ef_construction")
		})
	}
}

func vectorLiteral(v []float32) string {
	var sb strings.Builder
	sb.Grow(len(v) * 10)
	sb.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	sb.WriteByte(']')
	return sb.String()
}

// flat is an exact scan over unit vectors, the benchmarks' ground truth
// when the vectors are not in an Index.
type flat struct{ vs [][]float32 }

func newFlat(vs [][]float32) *flat {
	out := make([][]float32, len(vs))
	for i, v := range vs {
		c := slices.Clone(v)
		normalize(c)
		out[i] = c
	}
	return &flat{out}
}

func (f *flat) top(q []float32, k int) []int {
	qn := slices.Clone(q)
	normalize(qn)
	var h maxHeap
	for i, v := range f.vs {
		d := 1 - dot(qn, v)
		if h.Len() < k {
			h.push(cand{int32(i), d})
		} else if d < h.top().d {
			h.pop()
			h.push(cand{int32(i), d})
		}
	}
	var out []int
	for _, c := range h.drainAscending() {
		out = append(out, int(c.n))
	}
	return out
}
