package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/evalset"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	_ "github.com/jackc/pgx/v5/stdlib"
)

const benchKey = "agk_bench_retrieval_0123456789abcdef0123"

// instance is an agentry server of this process with a collection loaded
// through its API: one source, one content per document (the document's
// text, its title, its authors in metadata), one knowledge base.
type instance struct {
	name    string
	base    string
	kb      string
	byDoc   map[string]string // content id → document id
	stop    func()
	loadFor time.Duration
}

// startInstance starts a server on SQLite (databaseURL empty: a temporary
// data directory) or on PostgreSQL (a schema of its own, dropped at the
// end), and loads c through the ingestion pipeline.
func startInstance(ctx context.Context, name, databaseURL, embeddingModel string, c *evalset.Collection) (*instance, error) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir, err := os.MkdirTemp("", "agentry-retrieval-*")
	if err != nil {
		return nil, err
	}
	cleanups := []func(){func() { os.RemoveAll(dir) }}
	stop := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir, cfg.BootstrapAPIKey, cfg.RateLimit = "127.0.0.1:0", dir, benchKey, 0
	if databaseURL != "" {
		u, err := withSchema(databaseURL, &cleanups)
		if err != nil {
			stop()
			return nil, err
		}
		cfg.DatabaseURL = u
	}
	sctx, cancel := context.WithCancel(ctx)
	s, err := server.New(sctx, cfg, io.Discard)
	if err != nil {
		cancel()
		stop()
		return nil, err
	}
	addr, err := s.Listen()
	if err != nil {
		cancel()
		stop()
		return nil, err
	}
	done := make(chan struct{})
	go func() { s.Run(sctx); close(done) }()
	cleanups = append(cleanups, func() { cancel(); <-done })
	in := &instance{name: name, base: "http://" + addr.String(), byDoc: map[string]string{}, stop: stop}
	start := time.Now()
	var src struct{ ID string }
	body := map[string]any{"name": "collection", "source_type": "custom_index"}
	if embeddingModel != "" {
		body["embedding_model"] = embeddingModel
	}
	if err := in.call("POST", "/sources", body, &src); err != nil {
		stop()
		return nil, err
	}
	for _, d := range c.Docs {
		text := d.Text
		if strings.TrimSpace(text) == "" {
			text = d.Title
		}
		meta := map[string]any{"doc_id": d.ID}
		if d.Authors != "" {
			meta["authors"] = d.Authors
		}
		up := map[string]any{"text": text, "metadata": meta}
		if d.Title != "" {
			up["title"] = d.Title
		}
		var res struct {
			ID string `json:"source_connection_content_version_id"`
		}
		if err := in.call("POST", "/sources/"+src.ID, up, &res); err != nil {
			stop()
			return nil, fmt.Errorf("document %s: %w", d.ID, err)
		}
		in.byDoc[res.ID] = d.ID
	}
	if err := waitIndexed(ctx, s.DB, src.ID); err != nil {
		stop()
		return nil, err
	}
	var kb struct{ ID string }
	if err := in.call("POST", "/knowledge_bases", map[string]any{"name": "collection", "source_ids": []string{src.ID}}, &kb); err != nil {
		stop()
		return nil, err
	}
	in.kb = kb.ID
	// The first search loads the source's indexes; it is not measured.
	if _, err := in.search("warm up", nil, 10); err != nil {
		stop()
		return nil, err
	}
	in.loadFor = time.Since(start)
	return in, nil
}

// withSchema gives the run a PostgreSQL schema of its own.
func withSchema(databaseURL string, cleanups *[]func()) (string, error) {
	admin, err := sql.Open("pgx", databaseURL)
	if err != nil {
		return "", err
	}
	schema := fmt.Sprintf("bench_retrieval_%d", time.Now().UnixNano())
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		return "", err
	}
	*cleanups = append(*cleanups, func() {
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	})
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func waitIndexed(ctx context.Context, db *store.DB, sourceID string) error {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		var pending, failed int
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM contents WHERE source_id = $1 AND status <> $2`, sourceID, knowledge.ContentIndexed).Scan(&pending); err != nil {
			return err
		}
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM contents WHERE source_id = $1 AND status = $2`, sourceID, knowledge.ContentFailed).Scan(&failed); err != nil {
			return err
		}
		if failed > 0 {
			return fmt.Errorf("%d contents failed to index", failed)
		}
		if pending == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("indexing did not finish in 30 minutes")
}

func (in *instance) call(method, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, in.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", benchKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// search runs a query through the search extension with extra request
// fields, and answers the documents of the hits, best first, each once.
func (in *instance) search(query string, extra map[string]any, n int) ([]string, error) {
	body := map[string]any{"query": query, "top_n": min(200, 3*n)}
	for k, v := range extra {
		body[k] = v
	}
	var res struct {
		Results []struct {
			ContentID string  `json:"source_connection_content_version_id"`
			Score     float64 `json:"score"`
		} `json:"results"`
	}
	if err := in.call("POST", "/knowledge_bases/"+in.kb+"/search", body, &res); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range res.Results {
		d := in.byDoc[r.ContentID]
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
		if len(out) == n {
			break
		}
	}
	return out, nil
}
