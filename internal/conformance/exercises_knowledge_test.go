package conformance

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
)

// Knowledge: sources, contents, knowledge bases.

const knUploadType = "multipart/form-data; boundary=conformanceboundary"
const knUploadBody = "--conformanceboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.md\"\r\n" +
	"Content-Type: text/markdown\r\n\r\n# Notes\n\nThe quarterly report is due on Friday.\r\n" +
	"--conformanceboundary\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{\"team\":\"finance\"}\r\n--conformanceboundary--\r\n"

const knMissing = "00000000-0000-7000-8000-000000000000"

func knSource(t *testing.T, e *Env) Vars {
	t.Helper()
	r := e.Do(t, http.MethodPost, "/sources", map[string]any{"name": "Docs", "source_type": "custom_index"})
	var s struct{ ID string }
	r.JSON(t, &s)
	if s.ID == "" {
		t.Fatalf("create source: %s", r.Body)
	}
	return Vars{"source_connection_id": s.ID}
}

// knContent adds an indexed content to a fresh source.
func knContent(t *testing.T, e *Env) Vars {
	t.Helper()
	v := knSource(t, e)
	r := e.Do(t, http.MethodPost, "/sources/"+v["source_connection_id"], map[string]any{"text": "Invoices are paid within thirty days.", "title": "Invoices"})
	var u struct {
		ID string `json:"source_connection_content_version_id"`
	}
	r.JSON(t, &u)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := knowledge.TestRows(e.DB).Content(context.Background(), e.Tenant.AccountID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status == knowledge.ContentIndexed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("content still %s", c.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	v["source_connection_content_version"] = u.ID
	return v
}

func knKB(t *testing.T, e *Env) Vars {
	t.Helper()
	v := knSource(t, e)
	r := e.Do(t, http.MethodPost, "/knowledge_bases", map[string]any{"name": "KB", "source_ids": []string{v["source_connection_id"]}})
	var k struct{ ID string }
	r.JSON(t, &k)
	v["knowledge_base_id"] = k.ID
	return v
}

func init() {
	register(
		Exercise{Op: "POST /sources", Name: "custom index", Status: http.StatusCreated,
			Body: map[string]any{"name": "Docs", "source_type": "custom_index", "index_mode": "balanced"}, Check: agWantBody(`"index_mode":"balanced"`)},
		Exercise{Op: "POST /sources", Name: "legacy file_uploads", Status: http.StatusCreated,
			Body: map[string]any{"name": "Docs", "source_type": "file_uploads"}, Check: agWantBody(`"source_type":"custom_index"`)},
		Exercise{Op: "POST /sources", Name: "rss from its URL", Status: http.StatusCreated,
			Body: map[string]any{"name": "Feed", "source_type": "rss", "url_id": "https://example.com/feed.xml", "polling": "daily"}},
		Exercise{Op: "POST /sources", Name: "unknown type", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"name": "Docs", "source_type": "ftp"}, Check: expectLoc("body", "source_type")},
		Exercise{Op: "POST /sources", Name: "missing name", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"source_type": "rss"}},

		Exercise{Op: "GET /sources", Name: "list", Status: http.StatusOK, Setup: knSource, Check: agWantBody(`"pagination"`)},
		Exercise{Op: "GET /sources", Name: "bad limit", Status: http.StatusUnprocessableEntity, Path: "/sources?limit=1000"},
		Exercise{Op: "GET /sources/{source_connection_id}", Name: "get", Status: http.StatusOK, Setup: knSource},
		Exercise{Op: "GET /sources/{source_connection_id}", Name: "unknown", Status: http.StatusNotFound, Path: "/sources/" + knMissing},
		Exercise{Op: "GET /sources/{source_connection_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/sources/x"},
		Exercise{Op: "PUT /sources/{source_connection_id}", Name: "rename", Status: http.StatusOK, Setup: knSource,
			Body: map[string]any{"name": "Renamed", "retention_days": 7}, Check: agWantBody(`"retention":7`)},
		Exercise{Op: "PUT /sources/{source_connection_id}", Name: "bad polling", Status: http.StatusUnprocessableEntity, Setup: knSource,
			Body: map[string]any{"polling": "sometimes"}},
		Exercise{Op: "DELETE /sources/{source_connection_id}", Name: "delete", Status: http.StatusNoContent, Setup: knSource},
		Exercise{Op: "DELETE /sources/{source_connection_id}", Name: "unknown", Status: http.StatusNotFound, Path: "/sources/" + knMissing},

		Exercise{Op: "POST /sources/{source_connection_id}", Name: "inline text", Status: http.StatusOK, Setup: knSource,
			Body: map[string]any{"text": "Hello", "title": "Greeting", "metadata": map[string]any{"lang": "en"}}, Check: agWantBody(`"status":"uploaded"`)},
		Exercise{Op: "POST /sources/{source_connection_id}", Name: "too long", Status: http.StatusUnprocessableEntity, Setup: knSource,
			Body: map[string]any{"text": string(make([]byte, 9000))}},
		Exercise{Op: "POST /sources/{source_connection_id}/upload", Name: "upload", Status: http.StatusOK, Setup: knSource,
			Body: []byte(knUploadBody), Headers: []string{"Content-Type: " + knUploadType}, Check: agWantBody(`"filename":"notes.md"`)},
		Exercise{Op: "POST /sources/{source_connection_id}/upload", Name: "no file part", Status: http.StatusUnprocessableEntity, Setup: knSource,
			Body: []byte("--conformanceboundary--\r\n"), Headers: []string{"Content-Type: " + knUploadType}, Check: expectLoc("body", "file")},

		Exercise{Op: "GET /contents/{source_connection_content_version}", Name: "details", Status: http.StatusOK, Setup: knContent,
			Check: agWantBody(`"content_status":"indexed"`)},
		Exercise{Op: "GET /contents/{source_connection_content_version}", Name: "a range", Status: http.StatusOK, Setup: knContent,
			Path: "/contents/{source_connection_content_version}?start=0&end=8", Check: agWantBody(`"text_content":"Invoices"`)},
		Exercise{Op: "GET /contents/{source_connection_content_version}", Name: "unknown", Status: http.StatusNotFound, Path: "/contents/" + knMissing},
		Exercise{Op: "GET /contents/{source_connection_content_version}/embeddings", Name: "list", Status: http.StatusOK, Setup: knContent,
			Check: agWantBody(`"vector":[`)},
		Exercise{Op: "PUT /contents/{source_connection_content_version}", Name: "replace", Status: http.StatusOK, Setup: knContent,
			Body: map[string]any{"text": "Invoices are paid within sixty days."}},
		Exercise{Op: "PUT /contents/{source_connection_content_version}", Name: "no text", Status: http.StatusUnprocessableEntity, Setup: knContent,
			Body: map[string]any{"title": "x"}},
		Exercise{Op: "POST /contents/{source_connection_content_version}/upload", Name: "replace by upload", Status: http.StatusOK, Setup: knContent,
			Body: []byte(knUploadBody), Headers: []string{"Content-Type: " + knUploadType}},
		Exercise{Op: "DELETE /contents/{source_connection_content_version}", Name: "delete", Status: http.StatusNoContent, Setup: knContent},
		Exercise{Op: "DELETE /contents/{source_connection_content_version}", Name: "unknown", Status: http.StatusNotFound, Path: "/contents/" + knMissing},

		Exercise{Op: "POST /knowledge_bases", Name: "create", Status: http.StatusCreated, Setup: knSource,
			Body: func(v Vars) any {
				return map[string]any{"name": "KB", "source_ids": []string{v["source_connection_id"]}, "default_top_n": 8, "reranker_model": "offline"}
			}},
		Exercise{Op: "POST /knowledge_bases", Name: "no sources", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"name": "KB", "source_ids": []string{}}},
		Exercise{Op: "GET /knowledge_bases", Name: "list", Status: http.StatusOK, Setup: knKB},
		Exercise{Op: "GET /knowledge_bases/{knowledge_base_id}", Name: "get", Status: http.StatusOK, Setup: knKB},
		Exercise{Op: "GET /knowledge_bases/{knowledge_base_id}", Name: "unknown", Status: http.StatusNotFound, Path: "/knowledge_bases/" + knMissing},
		Exercise{Op: "PUT /knowledge_bases/{knowledge_base_id}", Name: "update", Status: http.StatusOK, Setup: knKB,
			Body: map[string]any{"description": "Team docs", "default_top_k": 3, "default_score_threshold": 0.1}},
		Exercise{Op: "PUT /knowledge_bases/{knowledge_base_id}", Name: "threshold out of range", Status: http.StatusUnprocessableEntity, Setup: knKB,
			Body: map[string]any{"default_score_threshold": 2}},
		Exercise{Op: "DELETE /knowledge_bases/{knowledge_base_id}", Name: "delete", Status: http.StatusNoContent, Setup: knKB},
		Exercise{Op: "DELETE /knowledge_bases/{knowledge_base_id}", Name: "unknown", Status: http.StatusNotFound, Path: "/knowledge_bases/" + knMissing},
	)
	for _, op := range []string{"DELETE /contents/{source_connection_content_version}", "GET /contents/{source_connection_content_version}",
		"GET /contents/{source_connection_content_version}/embeddings"} {
		path := "/contents/x"
		if op == "GET /contents/{source_connection_content_version}/embeddings" {
			path += "/embeddings"
		}
		register(Exercise{Op: op, Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: path})
	}
	register(
		Exercise{Op: "POST /contents/{source_connection_content_version}/upload", Name: "malformed id", Status: http.StatusUnprocessableEntity,
			Path: "/contents/x/upload", Body: []byte(knUploadBody), Headers: []string{"Content-Type: " + knUploadType}},
		Exercise{Op: "DELETE /knowledge_bases/{knowledge_base_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/knowledge_bases/x"},
		Exercise{Op: "GET /knowledge_bases/{knowledge_base_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/knowledge_bases/x"},
		Exercise{Op: "DELETE /sources/{source_connection_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/sources/x"},
		Exercise{Op: "GET /knowledge_bases", Name: "bad order", Status: http.StatusUnprocessableEntity, Path: "/knowledge_bases?order=sideways"},
	)
	waive("POST /sources", http.StatusPaymentRequired, "no subscription plan limits the number of sources")
	waive("POST /knowledge_bases", http.StatusPaymentRequired, "no subscription plan limits the number of knowledge bases")
}
