// Command ingest measures knowledge ingestion end to end: an in-process
// agentry server on SQLite with the offline embedder, documents uploaded
// over loopback HTTP (multipart), and the clock stopped when the indexing
// jobs (extract, chunk, embed, index) have made every passage searchable,
// then again after the first search has built the in-process vector index.
// It reports passages (chunks) per second, and the process's CPU time.
//
//	go run ./bench/ingest -docs 200 -size 60000
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/server"
)

const key = "agk_bench_ingest_0123456789abcdef01234567"

func main() {
	docs := flag.Int("docs", 200, "documents uploaded")
	size := flag.Int("size", 60000, "characters per document")
	mode := flag.String("mode", "slow_and_thorough", "index mode of the source (chunking and dimensions)")
	workers := flag.Int("workers", runtime.NumCPU()*2, "job workers")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))

	dir, err := os.MkdirTemp("", "agentry-ingest-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir, cfg.BootstrapAPIKey, cfg.RateLimit, cfg.MaxWorkers = "127.0.0.1:0", dir, key, 0, *workers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := server.New(ctx, cfg, io.Discard)
	if err != nil {
		log.Fatal(err)
	}
	addr, err := s.Listen()
	if err != nil {
		log.Fatal(err)
	}
	go s.Run(ctx)
	base := "http://" + addr.String()

	var src struct{ ID string }
	post(base+"/sources", "application/json", bytes.NewBufferString(`{"name":"bench","source_type":"custom_index","index_mode":"`+*mode+`"}`), &src)

	start := time.Now()
	cpu0 := cpuTime()
	var bytesSent int64
	for i := 0; i < *docs; i++ {
		var text bytes.Buffer
		for j := 0; text.Len() < *size; j++ {
			fmt.Fprintf(&text, "Section %d of document %d explains topic%d, with keyword%d and the details that matter. ", j, i, j%211, i*7919+j)
			if j%6 == 5 {
				text.WriteString("\n\n")
			}
		}
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		w, _ := mw.CreateFormFile("file", fmt.Sprintf("doc%d.md", i))
		w.Write(text.Bytes())
		mw.Close()
		bytesSent += int64(text.Len())
		post(base+"/sources/"+src.ID+"/upload", mw.FormDataContentType(), &buf, nil)
	}
	uploaded := time.Since(start)
	db := s.DB
	var acct string
	if err := db.R.QueryRowContext(ctx, `SELECT account_id FROM sources WHERE id = $1`, src.ID).Scan(&acct); err != nil {
		log.Fatal(err)
	}
	for {
		var pending, chunks int
		db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM contents WHERE source_id = $1 AND status <> $2`, src.ID, knowledge.ContentIndexed).Scan(&pending)
		db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1`, src.ID).Scan(&chunks)
		if pending == 0 {
			took := time.Since(start)
			// The in-process vector index of a source is built on its first
			// search: time that search too, so the end-to-end figure counts
			// the passages searchable by vector as well as by text.
			var kb struct{ ID string }
			post(base+"/knowledge_bases", "application/json", bytes.NewBufferString(`{"name":"bench","source_ids":["`+src.ID+`"]}`), &kb)
			t0 := time.Now()
			post(base+"/knowledge_bases/"+kb.ID+"/search", "application/json", bytes.NewBufferString(`{"query":"details that matter for topic7"}`), nil)
			vectors := time.Since(t0)
			endToEnd := took + vectors
			fmt.Printf("ingested %d documents (%.1f MiB) into %d passages in %v (uploads %v): %.0f passages/s, %.2f MiB/s; %d CPUs, %d workers, mode %s\n",
				*docs, float64(bytesSent)/(1<<20), chunks, took.Round(time.Millisecond), uploaded.Round(time.Millisecond),
				float64(chunks)/took.Seconds(), float64(bytesSent)/(1<<20)/took.Seconds(), runtime.NumCPU(), *workers, *mode)
			fmt.Printf("vector index: first search built it in %v; end to end (searchable by text and vector) %v: %.0f passages/s\n",
				vectors.Round(time.Millisecond), endToEnd.Round(time.Millisecond), float64(chunks)/endToEnd.Seconds())
			// On a shared machine wall time depends on the neighbours; the
			// process's own CPU time does not.
			cpu := cpuTime() - cpu0
			fmt.Printf("CPU time %v (user+system, whole process, vector index included): %.0f passages per CPU-second\n",
				cpu.Round(time.Millisecond), float64(chunks)/cpu.Seconds())
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func post(url, ct string, body io.Reader, out any) {
	req, _ := http.NewRequest("POST", url, body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		log.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	if out != nil {
		json.Unmarshal(b, out)
	}
}
