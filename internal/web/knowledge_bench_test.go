package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The knowledge area's benchmarks, at a realistic size: a source of
// 10,000 indexed contents (one passage of 80 words each, from a
// vocabulary of 3,000 words) plus 50 still queued and one real upload, in
// a knowledge base. Each page's p50 and p95 are reported (p50-ms,
// p95-ms), from the browser's side over a loopback socket, like the runs
// area's. For example:
//
//	go test -run '^$' -bench 'KnowledgePages' -benchtime 100x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)

// seedContents stores n indexed contents with one passage each straight
// into the store (the indexing pipeline would take minutes for 10,000;
// the pages read them through the API all the same), and pending more
// queued ones.
func seedContents(b *testing.B, srv *testserver.Server, sourceID string, n, pending int) {
	b.Helper()
	ctx := context.Background()
	src, err := knowledge.TestRows(srv.DB).Source(ctx, srv.AccountID, sourceID)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("%s%d", []string{"harbour", "tide", "chart", "pilot", "anchor", "beacon", "keel", "mast"}[i%8], i)
	}
	for i := 0; i < n+pending; i++ {
		title := fmt.Sprintf("Notice %05d", i)
		var c knowledge.Content
		err := srv.DB.Tx(ctx, func(tx *sql.Tx) error {
			c, err = knowledge.TestRows(srv.DB).CreateContent(ctx, tx, knowledge.Content{AccountID: srv.AccountID, SourceID: sourceID, Title: &title,
				ContentType: "text/plain", ContentURL: "upload://notice-" + fmt.Sprint(i), Filename: fmt.Sprintf("notice-%05d.txt", i),
				SHA256: fmt.Sprintf("%064x", i), SizeBytes: int64(400 + i%900)})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if i >= n {
			continue // left queued
		}
		words := make([]string, 80)
		for w := range words {
			words[w] = vocab[rng.IntN(len(vocab))]
		}
		text := strings.Join(words, " ")
		vec := make([]float32, src.Dimensions)
		for d := range vec {
			vec[d] = rng.Float32() - 0.5
		}
		chunk := knowledge.Chunk{ID: store.NewID(), AccountID: srv.AccountID, SourceID: sourceID, ContentID: c.ID, VersionID: c.VersionID,
			TextEnd: len(text), Text: text, Model: src.EmbeddingModel, Dims: src.Dimensions, Vector: vec, BatchSize: 1}
		if _, err := knowledge.TestRows(srv.DB).SwapChunks(ctx, sourceID, c.ID, c.VersionID, src.EmbeddingModel, src.Dimensions, []knowledge.Chunk{chunk}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// timedPost submits a form (with the CSRF header, as htmx does) and
// returns how long it took; the answer must be a 200 with want in it.
func timedPost(b *testing.B, br *browser, path string, form url.Values, want string) time.Duration {
	b.Helper()
	req, err := http.NewRequest(http.MethodPost, br.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", br.csrf)
	start := time.Now()
	resp, err := br.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
		b.Fatalf("%s: %d %v\n%.500s", path, resp.StatusCode, err, body)
	}
	return took
}

// BenchmarkKnowledgePages renders each page of the knowledge area over a
// source of 10,000 contents.
func BenchmarkKnowledgePages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			br.get("/console/knowledge")
			p := br.post("/console/knowledge/sources", url.Values{"name": {"Notices to mariners"}, "source_type": {"custom_index"}})
			sourceID := p.URL[strings.LastIndex(p.URL, "/")+1:]
			seedContents(b, srv, sourceID, 10_000, 50)
			// One real content, through the pipeline: text and passages.
			var long strings.Builder
			for i := range 400 {
				fmt.Fprintf(&long, "Paragraph %d. The harbour pilot boards inbound ships at the fairway buoy and keeps to the dredged channel.\n\n", i)
			}
			br.get("/console/knowledge/sources/" + sourceID)
			_, up := br.streamUpload("/console/knowledge/sources/"+sourceID+"/upload", "pilotage.md", "text/markdown", long.String())
			deadline := time.Now().Add(2 * time.Minute)
			for {
				var c struct {
					ContentStatus string `json:"content_status"`
				}
				srv.Do(b, "GET", "/contents/"+up.ContentID, srv.Key, nil).JSON(b, &c)
				if c.ContentStatus == "indexed" {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("the upload is still %s", c.ContentStatus)
				}
				time.Sleep(50 * time.Millisecond)
			}
			br.get("/console/knowledge")
			p = br.post("/console/knowledge/bases", url.Values{"name": {"Mariners"}, "source_id": {sourceID}})
			kb := p.URL[strings.LastIndex(p.URL, "/")+1:]
			br.get("/console/knowledge/bases/" + kb)
			settle(b, srv.DB)

			pages := []struct{ name, path, want string }{
				{"Knowledge", "/console/knowledge", "Notices to mariners"},
				{"Source", "/console/knowledge/sources/" + sourceID, "contents-table"},
				{"SourceDeepPage", "/console/knowledge/sources/" + sourceID + "?page=150", "page 150 of"},
				{"SourceFailedFilter", "/console/knowledge/sources/" + sourceID + "?status=pending", "50 pending contents"},
				{"ContentsRefresh", "/console/knowledge/sources/" + sourceID + "/contents", "contents-table"},
				{"Content", "/console/knowledge/contents/" + up.ContentID, "Passages"},
				{"KnowledgeBase", "/console/knowledge/bases/" + kb, "Hit testing"},
			}
			for _, pg := range pages {
				b.Run(pg.name, func(b *testing.B) {
					var durations []time.Duration
					for range b.N {
						durations = append(durations, timedGet(b, br, pg.path, pg.want))
					}
					reportLatency(b, durations)
				})
			}
			b.Run("HitTest", func(b *testing.B) {
				queries := []string{"harbour12 pilot", "tide841 chart2", "anchor4 beacon5", "keel7 mast15 harbour2999", "fairway buoy"}
				// The first search loads the source's index; a page is read after.
				timedPost(b, br, "/console/knowledge/bases/"+kb+"/test", url.Values{"q": {"warm up"}, "mode": {"full_text"}}, `id="hits"`)
				var durations []time.Duration
				for i := range b.N {
					form := url.Values{"q": {queries[i%len(queries)]}, "mode": {"full_text"}, "candidate_depth": {"30"}, "vector_weight": {"0.1"}}
					durations = append(durations, timedPost(b, br, "/console/knowledge/bases/"+kb+"/test", form, "hit-head"))
				}
				reportLatency(b, durations)
			})
		})
	}
}
