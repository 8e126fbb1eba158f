package isolation

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/testserver"
)

// Knowledge: sources, contents, knowledge bases and their search belong to
// the caller's account; B never lists, reads, writes to, searches or
// deletes A's, nor links A's sources into its own knowledge base.

const knUploadType = "multipart/form-data; boundary=isolationboundary"
const knUploadBody = "--isolationboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.md\"\r\n" +
	"Content-Type: text/markdown\r\n\r\nB's words\r\n--isolationboundary--\r\n"

// knOfA makes A's source with one indexed content and a knowledge base.
func knOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	r := c.AsA(t, http.MethodPost, "/sources", map[string]any{"name": "A's docs", "source_type": "custom_index"})
	var src struct{ ID string }
	r.JSON(t, &src)
	r = c.AsA(t, http.MethodPost, "/sources/"+src.ID, map[string]any{"text": "A's secret plan: launch the zeppelin at noon.", "title": "Plan"})
	var up struct {
		ID string `json:"source_connection_content_version_id"`
	}
	r.JSON(t, &up)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := knowledge.TestRows(c.DB).Content(context.Background(), c.A.AccountID, up.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == knowledge.ContentIndexed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A's content still %s", got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r = c.AsA(t, http.MethodPost, "/knowledge_bases", map[string]any{"name": "A's KB", "source_ids": []string{src.ID}})
	var kb struct{ ID string }
	r.JSON(t, &kb)
	return Vars{"source_connection_id": src.ID, "source_connection_content_version": up.ID, "knowledge_base_id": kb.ID}
}

// contentIntact checks A's content still holds A's text.
func contentIntact(t testing.TB, c *Ctx, _ testserver.Response) {
	t.Helper()
	r := c.AsA(t, http.MethodGet, "/contents/{source_connection_content_version}", nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "zeppelin") {
		t.Errorf("A's content changed: %d %.300s", r.Status, r.Body)
	}
}

func init() {
	register(
		Case{Op: "GET /sources", Name: "B does not list A's sources", Setup: knOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "GET /sources", Name: "B names A's account", Setup: func(t *testing.T, c *Ctx) Vars {
			v := knOfA(t, c)
			v["a_account"] = c.A.AccountID
			return v
		},
			Path: "/sources?account_id={a_account}", Expect: Status(http.StatusForbidden), NoControl: true},
		Case{Op: "POST /sources", Name: "B's source is B's own", Setup: knOfA,
			Body: map[string]any{"name": "B's docs", "source_type": "custom_index"},
			Expect: Status(http.StatusCreated, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				var list struct{ Data []any }
				c.AsA(t, http.MethodGet, "/sources", nil).JSON(t, &list)
				if len(list.Data) != 1 {
					t.Errorf("A now sees %d sources", len(list.Data))
				}
			}), NoControl: true},
		Case{Op: "GET /sources/{source_connection_id}", Name: "B reads A's source", Setup: knOfA, Expect: NotFound()},
		Case{Op: "PUT /sources/{source_connection_id}", Name: "B renames A's source", Setup: knOfA,
			Body: map[string]any{"name": "B was here"}, Expect: NotFound(),
			Control: Status(http.StatusOK)},
		Case{Op: "DELETE /sources/{source_connection_id}", Name: "B deletes A's source", Setup: knOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				contentIntact(t, c, r)
			}, Control: Status(http.StatusNoContent)},
		Case{Op: "POST /sources/{source_connection_id}", Name: "B adds text to A's source", Setup: knOfA,
			Body: map[string]any{"text": "B's words"}, Expect: NotFound()},
		Case{Op: "POST /sources/{source_connection_id}/upload", Name: "B uploads to A's source", Setup: knOfA,
			Headers: []string{"Content-Type: " + knUploadType}, Body: knUploadBody, Expect: NotFound()},

		Case{Op: "GET /contents/{source_connection_content_version}", Name: "B reads A's content", Setup: knOfA, Expect: NotFound()},
		Case{Op: "GET /contents/{source_connection_content_version}/embeddings", Name: "B lists A's embeddings", Setup: knOfA, Expect: NotFound()},
		Case{Op: "PUT /contents/{source_connection_content_version}", Name: "B replaces A's content", Setup: knOfA,
			Body: map[string]any{"text": "B's words"}, Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				contentIntact(t, c, r)
			}, NoControl: true},
		Case{Op: "POST /contents/{source_connection_content_version}/upload", Name: "B uploads over A's content", Setup: knOfA,
			Headers: []string{"Content-Type: " + knUploadType}, Body: knUploadBody, Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				contentIntact(t, c, r)
			}, NoControl: true},
		Case{Op: "DELETE /contents/{source_connection_content_version}", Name: "B deletes A's content", Setup: knOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				contentIntact(t, c, r)
			}, Control: Status(http.StatusNoContent)},

		Case{Op: "GET /knowledge_bases", Name: "B does not list A's knowledge bases", Setup: knOfA,
			Expect: Status(http.StatusOK, EmptyList("knowledge_bases")), Control: Status(http.StatusOK, NonEmptyList("knowledge_bases"))},
		Case{Op: "POST /knowledge_bases", Name: "B links A's source", Setup: knOfA,
			Body: func(v Vars) any {
				return map[string]any{"name": "B's KB", "source_ids": []string{v["source_connection_id"]}}
			},
			Expect: Status(http.StatusUnprocessableEntity), Control: Status(http.StatusCreated)},
		Case{Op: "GET /knowledge_bases/{knowledge_base_id}", Name: "B reads A's knowledge base", Setup: knOfA, Expect: NotFound()},
		Case{Op: "PUT /knowledge_bases/{knowledge_base_id}", Name: "B changes A's knowledge base", Setup: knOfA,
			Body: map[string]any{"name": "B was here"}, Expect: NotFound()},
		Case{Op: "DELETE /knowledge_bases/{knowledge_base_id}", Name: "B deletes A's knowledge base", Setup: knOfA,
			Expect: NotFound(), Control: Status(http.StatusNoContent)},
		Case{Op: "GET /knowledge_bases/{knowledge_base_id}/search-settings", Name: "B reads A's search settings", Setup: knOfA, Expect: NotFound()},
		Case{Op: "PUT /knowledge_bases/{knowledge_base_id}/search-settings", Name: "B changes A's search settings", Setup: knOfA,
			Body: map[string]any{"mode": "vector", "feedback": true}, Expect: NotFound(),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"mode":"vector"`) {
					t.Errorf("A's own change was not applied: %.300s", r.Body)
				}
			})},
		Case{Op: "POST /knowledge_bases/{knowledge_base_id}/search", Name: "B searches A's knowledge base", Setup: knOfA,
			Body: map[string]any{"query": "zeppelin"}, Expect: NotFound(),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), "zeppelin") {
					t.Errorf("A's search misses its own content: %.300s", r.Body)
				}
			})},
		Case{Op: "POST /knowledge_bases/{knowledge_base_id}/search", Name: "B's knowledge base over A's source finds nothing of A's",
			Setup: func(t *testing.T, c *Ctx) Vars {
				v := knOfA(t, c)
				// B's own knowledge base, then A's source id forced into its
				// links behind the API's back: search must still scope by account.
				r := c.AsB(t, http.MethodPost, "/sources", map[string]any{"name": "B's docs", "source_type": "custom_index"})
				var src struct{ ID string }
				r.JSON(t, &src)
				r = c.AsB(t, http.MethodPost, "/knowledge_bases", map[string]any{"name": "B's KB", "source_ids": []string{src.ID}})
				var kb struct{ ID string }
				r.JSON(t, &kb)
				if _, err := c.DB.W.Exec(`INSERT INTO knowledge_base_sources (knowledge_base_id, source_id, position) VALUES ($1, $2, 9)`, kb.ID, v["source_connection_id"]); err != nil {
					t.Fatal(err)
				}
				v["knowledge_base_id"] = kb.ID
				return v
			},
			Body: map[string]any{"query": "zeppelin"},
			Expect: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"results":[]`) {
					t.Errorf("B's search found A's content: %.300s", r.Body)
				}
			}), NoControl: true},
	)
}
