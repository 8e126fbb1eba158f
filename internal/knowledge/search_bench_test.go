package knowledge

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/store"
)

// BenchmarkSearch100k measures knowledge search as the API runs it (the
// service's Search: both indexes, the store, fusion, fetching passages)
// over 100,000 passages of one source on SQLite, offline embedder, the
// default index mode (256 dimensions): the defaults (full text) and hybrid
// mode with and without RM3 feedback, and vector mode. It reports p50 and
// p99 of wall time per search, which depend on the machine's load, p50
// and p99 of the CPU time of the thread running each search, which is the
// latency a search has with a core to itself, and the process's CPU time
// per search (background work included).
//
//	go test -run '^$' -bench Search100k -benchtime 1000x -timeout 2h ./internal/knowledge
//
// BENCH_CHUNKS sets another size; BENCH_DIR keeps the database and the
// vector index's snapshot between runs (the first builds them: storing
// 100,000 passages and building the vector graph take minutes), and
// SERVICE_TEST_DATABASE_URL runs it on PostgreSQL instead (with pgvector
// when installed).
func BenchmarkSearch100k(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_CHUNKS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	f := searchFixture(b, ctx, n)
	queries := f.queries
	modes := []struct {
		name string
		set  SearchSettings
	}{
		{"defaults", SearchSettings{}}, // full text, with the offline embedder
		{"defaults+feedback", SearchSettings{Feedback: ptr(true)}},
		{"hybrid", SearchSettings{Mode: SearchHybrid}},
		{"hybrid+feedback", SearchSettings{Mode: SearchHybrid, Feedback: ptr(true)}},
		{"vector", SearchSettings{Mode: SearchVector}},
	}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			// Wall time depends on the machine's load; the CPU time of the
			// thread running the search (the goroutine is locked to it) is
			// what the search costs when it has a core to itself.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var lat, cpu []time.Duration
			var cpu0 = cpuTime()
			for i := 0; i < b.N; i++ {
				t0, c0 := time.Now(), threadCPU()
				hits, err := f.svc.Search(ctx, f.acct, f.kb, SearchRequest{Query: queries[i%len(queries)], TopN: 10, Settings: m.set})
				lat, cpu = append(lat, time.Since(t0)), append(cpu, threadCPU()-c0)
				if err != nil || len(hits) == 0 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			all := cpuTime() - cpu0
			pct := func(d []time.Duration, p int) float64 {
				sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
				return ms(d[min(len(d)-1, len(d)*p/100)])
			}
			b.ReportMetric(pct(lat, 50), "p50-ms")
			b.ReportMetric(pct(lat, 99), "p99-ms")
			b.ReportMetric(pct(cpu, 50), "cpu-p50-ms")
			b.ReportMetric(pct(cpu, 99), "cpu-p99-ms")
			b.ReportMetric(ms(all)/float64(b.N), "process-cpu-ms/op")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type benchFixture struct {
	svc       *Service
	acct, kb  string
	queries   []string
	buildTime time.Duration
}

// benchIDs are what BENCH_DIR keeps of a built fixture.
type benchIDs struct {
	Account, KB string
	Chunks      int
}

// searchFixture stores n synthetic passages (or opens those BENCH_DIR
// kept) and warms the indexes.
func searchFixture(b *testing.B, ctx context.Context, n int) *benchFixture {
	b.Helper()
	dir := os.Getenv("BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	dbURL := os.Getenv("SERVICE_TEST_DATABASE_URL")
	db, err := store.Open(ctx, dbURL, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	svc, err := New(ctx, db, nil, nil, nil, Config{IndexDir: filepath.Join(dir, "index")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(svc.FlushIndex)
	r := rand.New(rand.NewPCG(1, 2))
	gen := newTextGen(r)
	f := &benchFixture{svc: svc}
	for range 200 {
		f.queries = append(f.queries, gen.text(12))
	}
	idsPath := filepath.Join(dir, "bench-ids.json")
	var ids benchIDs
	if raw, err := os.ReadFile(idsPath); err == nil && json.Unmarshal(raw, &ids) == nil && ids.Chunks == n && dbURL == "" {
		f.acct, f.kb = ids.Account, ids.KB
	} else {
		f.acct, f.kb = storeCorpus(b, ctx, db, gen, n)
		raw, _ := json.Marshal(benchIDs{Account: f.acct, KB: f.kb, Chunks: n})
		_ = os.WriteFile(idsPath, raw, 0o600)
	}
	t0 := time.Now()
	if _, err := svc.Search(ctx, f.acct, f.kb, SearchRequest{Query: f.queries[0], Settings: SearchSettings{Mode: SearchHybrid}}); err != nil {
		b.Fatal(err)
	}
	f.buildTime = time.Since(t0)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.Logf("%d passages on %s (%s); first search (loads both indexes) %v; heap %d MB; GOMAXPROCS %d",
		n, db.Dialect, svc.IndexName(), f.buildTime.Round(time.Millisecond), ms.HeapAlloc>>20, runtime.GOMAXPROCS(0))
	return f
}

func storeCorpus(b *testing.B, ctx context.Context, db *store.DB, gen *textGen, n int) (acct, kb string) {
	b.Helper()
	a, err := directory.CreateAccount(ctx, db, "personal", "bench", 100)
	if err != nil {
		b.Fatal(err)
	}
	const dims = 256 // the default index mode's
	src, err := repoOn(db).CreateSource(ctx, Source{AccountID: a.ID, Name: "bench", SourceType: TypeCustomIndex, ChunkSize: 3000,
		ChunkOverlap: 500, EmbeddingModel: OfflineEmbeddingModel, Dimensions: dims, ContentFilter: "all"})
	if err != nil {
		b.Fatal(err)
	}
	emb := offline.NewEmbedder(dims)
	const perContent = 50
	for start := 0; start < n; start += perContent {
		var c Content
		title := gen.text(6)
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			c, err = repoOn(db).CreateContent(ctx, tx, Content{AccountID: a.ID, SourceID: src.ID, ContentType: "text/plain", Filename: "f",
				BlobKey: "k", SHA256: strconv.Itoa(start), Title: &title})
			return err
		}); err != nil {
			b.Fatal(err)
		}
		var chunks []Chunk
		for i := start; i < min(n, start+perContent); i++ {
			text := gen.text(80)
			chunks = append(chunks, Chunk{AccountID: a.ID, SourceID: src.ID, ContentID: c.ID, VersionID: c.VersionID,
				Ordinal: i - start, Text: text, Model: OfflineEmbeddingModel, Dims: dims, Vector: emb.Embed(text), BatchSize: perContent})
		}
		if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, c.VersionID, OfflineEmbeddingModel, dims, chunks, nil); err != nil {
			b.Fatal(err)
		}
	}
	k, err := repoOn(db).CreateKnowledgeBase(ctx, KnowledgeBase{AccountID: a.ID, Name: "bench", SourceIDs: []string{src.ID}})
	if err != nil {
		b.Fatal(err)
	}
	return a.ID, k.ID
}

// textGen draws English-like text: words of a Zipf-shaped vocabulary
// (a few very common, most rare, as in prose) with topical clusters, so
// posting lists have the skew of real passages.
type textGen struct {
	r      *rand.Rand
	zipf   *rand.Zipf
	topics [][]uint64
}

func newTextGen(r *rand.Rand) *textGen {
	const vocab, topics = 30000, 300
	g := &textGen{r: r, zipf: rand.NewZipf(r, 1.1, 2, vocab-1)}
	for range topics {
		var tw []uint64
		for range 40 {
			tw = append(tw, uint64(r.IntN(vocab)))
		}
		g.topics = append(g.topics, tw)
	}
	return g
}

// word names vocabulary entry i with letters only (so it is stemmed like
// a word).
func word(i uint64) string {
	var sb strings.Builder
	sb.WriteByte('w')
	for {
		sb.WriteByte(byte('a' + i%26))
		i /= 26
		if i == 0 {
			return sb.String()
		}
	}
}

func (g *textGen) text(words int) string {
	var sb strings.Builder
	tw := g.topics[g.r.IntN(len(g.topics))]
	for range words {
		if g.r.IntN(3) == 0 {
			sb.WriteString(word(tw[g.r.IntN(len(tw))]))
		} else {
			sb.WriteString(word(g.zipf.Uint64()))
		}
		sb.WriteByte(' ')
	}
	return sb.String()
}
