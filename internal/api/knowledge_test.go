package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// upload posts a multipart form: fields before the file, the file, then
// fields after it.
func kupload(t *testing.T, s *testserver.Server, path, key, filename, contentType string, body []byte, before, after map[string]string) testserver.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range before {
		mw.WriteField(k, v)
	}
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + filename + `"`}
	if contentType != "" {
		h["Content-Type"] = []string{contentType}
	}
	w, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	for k, v := range after {
		mw.WriteField(k, v)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", s.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return testserver.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func waitIndexed(t *testing.T, s *testserver.Server, key, contentID, wantVersion string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := s.Do(t, "GET", "/contents/"+contentID, key, nil)
		var c map[string]any
		r.JSON(t, &c)
		if r.Status == http.StatusOK && c["content_status"] == "indexed" && (wantVersion == "" || currentVersion(t, s, contentID) == wantVersion) {
			return c
		}
		if c["content_status"] == "failed" {
			t.Fatalf("content failed: %s", r.Body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("content %s not indexed: %s", contentID, r.Body)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

type searchResult struct {
	Results []struct {
		Text, Title, ChunkID             string
		Score                            float64
		SourceConnectionContentVersionID string `json:"source_connection_content_version_id"`
		SourceConnectionID               string `json:"source_connection_id"`
		ContentVersionID                 string `json:"content_version_id"`
		Metadata                         map[string]any
	}
}

func search(t *testing.T, s *testserver.Server, key, kb string, body map[string]any) searchResult {
	t.Helper()
	r := s.Do(t, "POST", "/knowledge_bases/"+kb+"/search", key, body)
	wantStatus(t, r, http.StatusOK)
	var out searchResult
	r.JSON(t, &out)
	return out
}

const (
	docOtters = "# Sea otters\n\nSea otters hold hands while they sleep so they do not drift apart. They use rocks as tools to open shellfish."
	docRust   = "# Rust ownership\n\nEvery value in Rust has a single owner; when the owner goes out of scope the value is dropped. Borrowing lends access without moving ownership."
)

// The knowledge area end to end over HTTP on both databases: a content
// store fed by inline text and a multipart upload, indexed by the
// pipeline, searched through a knowledge base with and without a metadata
// filter, a content replaced by a new version whose old passages leave the
// index, and deletion.
func TestKnowledgeAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Notes", "source_type": "file_uploads"})
		wantStatus(t, r, http.StatusCreated)
		var src map[string]any
		r.JSON(t, &src)
		sid := src["id"].(string)
		if src["source_type"] != "custom_index" || src["index_mode"] != "fast_and_cheap" || src["chunk_size"].(float64) != 3000 || src["dimensions"].(float64) != 256 {
			t.Fatalf("source: %s", r.Body)
		}
		// Inline text, then a file with metadata sent after the file part.
		r = s.Do(t, "POST", "/sources/"+sid, s.Key, map[string]any{"text": docOtters, "content_type": "text/markdown", "title": "Otters", "metadata": map[string]any{"topic": "animals"}})
		wantStatus(t, r, http.StatusOK)
		var up1 map[string]any
		r.JSON(t, &up1)
		otters := up1["source_connection_content_version_id"].(string)
		r = kupload(t, s, "/sources/"+sid+"/upload", s.Key, "rust.md", "", []byte(docRust), nil, map[string]string{"metadata": `{"topic":"code","year":2024}`, "metadata_author": "Ferris"})
		wantStatus(t, r, http.StatusOK)
		var up2 map[string]any
		r.JSON(t, &up2)
		rust := up2["source_connection_content_version_id"].(string)
		if up2["status"] != "uploaded" || up2["filename"] != "rust.md" {
			t.Fatalf("upload: %s", r.Body)
		}
		// The same bytes again are a duplicate of the first.
		r = kupload(t, s, "/sources/"+sid+"/upload", s.Key, "again.md", "", []byte(docRust), nil, nil)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"duplicate"`) || !strings.Contains(string(r.Body), rust) {
			t.Fatalf("duplicate: %s", r.Body)
		}
		// Unsupported types: 415 listing what is; bad metadata: 422.
		r = kupload(t, s, "/sources/"+sid+"/upload", s.Key, "x.exe", "application/x-msdownload", []byte("MZ\x90\x00binary"), nil, nil)
		if r.Status != http.StatusUnsupportedMediaType || !strings.Contains(string(r.Body), "text/markdown") {
			t.Fatalf("unsupported: %d %s", r.Status, r.Body)
		}
		wantStatus(t, kupload(t, s, "/sources/"+sid+"/upload", s.Key, "a.txt", "", []byte("hello"), map[string]string{"metadata": "[1,2]"}, nil), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid, s.Key, map[string]any{"text": strings.Repeat("x", 9000)}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid, s.Key, map[string]any{"text": "x", "content_type": "image/png"}), http.StatusUnsupportedMediaType)

		c := waitIndexed(t, s, s.Key, rust, "")
		if c["title"] != "rust" || !strings.Contains(c["text_content"].(string), "single owner") || c["source_name"] != "Notes" {
			t.Fatalf("content: %v", c)
		}
		waitIndexed(t, s, s.Key, otters, "")
		r = s.Do(t, "GET", "/contents/"+rust+"?start=9&end=14", s.Key, nil)
		var part map[string]any
		r.JSON(t, &part)
		if part["text_content"] != "owner" && part["text_content_start"].(float64) != 9 {
			t.Errorf("range: %s", r.Body)
		}
		r = s.Do(t, "GET", "/contents/"+rust+"/embeddings", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var embs struct {
			Data []struct {
				Vector []float64
				Text   string
			}
			Pagination map[string]any
		}
		r.JSON(t, &embs)
		if len(embs.Data) == 0 || len(embs.Data[0].Vector) != 256 || embs.Pagination["total"].(float64) < 1 {
			t.Fatalf("embeddings: %.300s", r.Body)
		}

		r = s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{sid}, "default_top_n": 5})
		wantStatus(t, r, http.StatusCreated)
		var kb map[string]any
		r.JSON(t, &kb)
		kbID := kb["id"].(string)
		if srcs := kb["sources"].([]any); len(srcs) != 1 {
			t.Fatalf("kb: %s", r.Body)
		}
		res := search(t, s, s.Key, kbID, map[string]any{"query": "why do otters hold hands"})
		if len(res.Results) == 0 || res.Results[0].SourceConnectionContentVersionID != otters || res.Results[0].Score <= 0 || res.Results[0].Title != "Otters" {
			t.Fatalf("search: %+v", res)
		}
		res = search(t, s, s.Key, kbID, map[string]any{"query": "ownership borrowing", "metadata_filter": map[string]any{"topic": "animals"}})
		for _, h := range res.Results {
			if h.SourceConnectionContentVersionID != otters {
				t.Fatalf("filter let through %+v", h)
			}
		}
		res = search(t, s, s.Key, kbID, map[string]any{"query": "ownership", "metadata_filter": map[string]any{"year": map[string]any{"$gte": 2020}}})
		if len(res.Results) == 0 || res.Results[0].SourceConnectionContentVersionID != rust || res.Results[0].Metadata["author"] != "Ferris" {
			t.Fatalf("filtered search: %+v", res)
		}
		wantStatus(t, s.Do(t, "POST", "/knowledge_bases/"+kbID+"/search", s.Key, map[string]any{"query": "x", "metadata_filter": map[string]any{"$bogus": 1}}), http.StatusUnprocessableEntity)

		// Replace the otters with a new version: the old passages leave.
		r = s.Do(t, "PUT", "/contents/"+otters, s.Key, map[string]any{"text": "Penguins huddle together to keep warm in Antarctic winters."})
		wantStatus(t, r, http.StatusOK)
		var rep map[string]any
		r.JSON(t, &rep)
		if rep["source_connection_content_version_id"] != otters || rep["content_version_id"] == up1["content_version_id"] {
			t.Fatalf("replace: %s", r.Body)
		}
		waitIndexed(t, s, s.Key, otters, rep["content_version_id"].(string))
		res = search(t, s, s.Key, kbID, map[string]any{"query": "penguins huddle"})
		if len(res.Results) == 0 || !strings.Contains(res.Results[0].Text, "Penguins") {
			t.Fatalf("new version not found: %+v", res)
		}
		for _, h := range search(t, s, s.Key, kbID, map[string]any{"query": "otters hold hands"}).Results {
			if strings.Contains(h.Text, "otters") {
				t.Fatalf("old version still indexed: %+v", h)
			}
		}
		// Replace by upload too.
		r = kupload(t, s, "/contents/"+rust+"/upload", s.Key, "rust2.txt", "", []byte("Lifetimes tell the compiler how long references live."), nil, map[string]string{"title": "Lifetimes"})
		wantStatus(t, r, http.StatusOK)
		var rep2 map[string]any
		r.JSON(t, &rep2)
		waitIndexed(t, s, s.Key, rust, rep2["content_version_id"].(string))

		// Lists, updates, bad input.
		r = s.Do(t, "GET", "/sources?limit=1", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"content_count":2`) {
			t.Errorf("list: %s", r.Body)
		}
		r = s.Do(t, "PUT", "/sources/"+sid, s.Key, map[string]any{"name": "Renamed", "retention_days": 30})
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"retention":30`) || !strings.Contains(string(r.Body), `"Renamed"`) {
			t.Errorf("update: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "x", "source_type": "ftp"}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "x", "source_type": "rss"}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "x", "source_type": "custom_index", "chunk_size": 100, "chunk_overlap": 100}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "x", "source_ids": []string{store.NewID()}}), http.StatusUnprocessableEntity)
		r = s.Do(t, "PUT", "/knowledge_bases/"+kbID, s.Key, map[string]any{"default_top_n": 0, "reranker_model": "bogus"})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		for v, field := range map[string]string{"2026-07-01": "knowledge_bases", "2026-07-27": "data"} {
			r := s.Do(t, "GET", "/knowledge_bases", s.Key, nil, "Service-Version: "+v)
			var list map[string]any
			r.JSON(t, &list)
			if items, _ := list[field].([]any); len(items) != 1 {
				t.Errorf("kb list at %s: %s", v, r.Body)
			}
		}
		// An rss source from its URL in one call: a URL record is made.
		r = s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Feed", "source_type": "rss", "url_id": "https://example.com/feed.xml", "polling": "hourly"})
		wantStatus(t, r, http.StatusCreated)
		var feed map[string]any
		r.JSON(t, &feed)
		if feed["url"] != "https://example.com/feed.xml" || feed["next_poll_at"] == nil {
			t.Fatalf("rss: %s", r.Body)
		}
		fsrc, err := knowledge.TestRows(s.DB).Source(context.Background(), s.AccountID, feed["id"].(string))
		if err != nil || fsrc.URLID == nil {
			t.Fatalf("no URL record: %+v %v", fsrc, err)
		}
		r = s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Feed 2", "source_type": "rss", "url_id": *fsrc.URLID})
		wantStatus(t, r, http.StatusCreated)
		if !strings.Contains(string(r.Body), "https://example.com/feed.xml") {
			t.Fatalf("rss by record: %s", r.Body)
		}

		// Deleting a content removes it from search; deleting the source too.
		wantStatus(t, s.Do(t, "DELETE", "/contents/"+otters, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "GET", "/contents/"+otters, s.Key, nil), http.StatusNotFound)
		if res := search(t, s, s.Key, kbID, map[string]any{"query": "penguins huddle"}); len(res.Results) > 0 && strings.Contains(res.Results[0].Text, "Penguins") {
			t.Fatalf("deleted content found: %+v", res)
		}
		wantStatus(t, s.Do(t, "DELETE", "/knowledge_bases/"+kbID, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "DELETE", "/sources/"+sid, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "GET", "/contents/"+rust, s.Key, nil), http.StatusNotFound)
	})
}

// retrieval_example answers from a knowledge base, offline; a new_content
// agent (content_change_notifier) runs once per indexed content version
// and records its summary in the content's metadata.
func TestKnowledgeTemplatesOffline(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Docs", "source_type": "custom_index", "index_mode": "balanced"})
		wantStatus(t, r, http.StatusCreated)
		var src map[string]any
		r.JSON(t, &src)
		sid := src["id"].(string)
		r = s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{sid}})
		wantStatus(t, r, http.StatusCreated)

		// A new_content agent, before the content arrives.
		r = s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Notifier", "agent_template": "content_change_notifier"})
		wantStatus(t, r, http.StatusCreated)
		var notifier map[string]any
		r.JSON(t, &notifier)

		r = s.Do(t, "POST", "/sources/"+sid, s.Key, map[string]any{"text": docOtters, "content_type": "text/markdown", "title": "Otters"})
		wantStatus(t, r, http.StatusOK)
		var up map[string]any
		r.JSON(t, &up)
		cid := up["source_connection_content_version_id"].(string)
		waitIndexed(t, s, s.Key, cid, "")

		// retrieval_example: the retrieval step's passages feed the answer.
		r = s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Ask", "agent_template": "retrieval_example"})
		wantStatus(t, r, http.StatusCreated)
		var ask map[string]any
		r.JSON(t, &ask)
		aid := ask["id"].(string)
		if aid == "" {
			aid = ask["agent_id"].(string)
		}
		r = s.Do(t, "POST", "/agents/"+aid+"/runs", s.Key, map[string]any{"input": "What do sea otters use as tools?"})
		wantStatus(t, r, http.StatusOK)
		var start runs.RunResponse
		r.JSON(t, &start)
		done := waitRun(t, s, s.Key, start.RunID)
		if done.Status != "completed" {
			t.Fatalf("retrieval_example: %+v", done)
		}
		var retrieved string
		for _, st := range done.Steps {
			b, _ := json.Marshal(st)
			if strings.Contains(string(b), "retrieval") {
				retrieved = string(b)
			}
		}
		if !strings.Contains(retrieved, "Otters") || !strings.Contains(retrieved, cid) {
			t.Fatalf("retrieval step output lacks the citation: %s", retrieved)
		}
		// The retrieval event is the step's trace: each citation explains
		// its ranking, in clean JSON.
		var evData string
		if err := s.DB.R.QueryRow(`SELECT data FROM events WHERE stream_id = $1 AND type = 'retrieval'`, start.RunID).Scan(&evData); err != nil {
			t.Fatalf("retrieval event: %v", err)
		}
		var ev struct {
			Citations []struct {
				Explain struct {
					FullTextScore *float64 `json:"fulltext_score"`
					FusedRank     int      `json:"fused_rank"`
				}
			}
			Settings   map[string]any
			QueryTerms []string `json:"query_terms"`
		}
		if err := json.Unmarshal([]byte(evData), &ev); err != nil || len(ev.Citations) == 0 || ev.Citations[0].Explain.FusedRank != 1 ||
			ev.Citations[0].Explain.FullTextScore == nil || ev.Settings["mode"] != "full_text" || len(ev.QueryTerms) == 0 {
			t.Fatalf("retrieval event %s: %v", evData, err)
		}

		// The notifier ran once for the version and wrote its summary.
		nid, _ := notifier["id"].(string)
		deadline := time.Now().Add(20 * time.Second)
		for {
			r = s.Do(t, "GET", "/agents/"+nid+"/runs", s.Key, nil)
			var list map[string]any
			r.JSON(t, &list)
			data, _ := list["data"].([]any)
			if data == nil {
				data, _ = list["runs"].([]any)
			}
			if len(data) == 1 {
				run := data[0].(map[string]any)
				id, _ := run["run_id"].(string)
				if id == "" {
					id, _ = run["id"].(string)
				}
				fin := waitRun(t, s, s.Key, id)
				if fin.Status != "completed" {
					t.Fatalf("notifier run: %+v", fin)
				}
				break
			}
			if len(data) > 1 {
				t.Fatalf("notifier fired %d times: %s", len(data), r.Body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("notifier never ran: %s", r.Body)
			}
			time.Sleep(50 * time.Millisecond)
		}
		r = s.Do(t, "GET", "/contents/"+cid, s.Key, nil)
		if !strings.Contains(string(r.Body), "change_summary") {
			t.Logf("the offline model judged the content not notable (no change_summary): %s", r.Body)
		}
	})
}

func currentVersion(t *testing.T, s *testserver.Server, contentID string) string {
	t.Helper()
	c, err := knowledge.TestRows(s.DB).Content(context.Background(), s.AccountID, contentID)
	if err != nil {
		t.Fatal(err)
	}
	return c.VersionID
}
