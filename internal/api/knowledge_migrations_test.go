package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func waitMigration(t *testing.T, s *testserver.Server, sid string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		r := s.Do(t, "GET", "/sources/"+sid+"/embedding-migration", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var m map[string]any
		r.JSON(t, &m)
		switch m["status"] {
		case "completed", "failed", "cancelled":
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("migration still %v", m["status"])
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// An embedding migration re-embeds a source with the offline embedder at
// another size: searches answer throughout, and after the switch every
// chunk and the source carry the new size; a cancelled one changes nothing.
func TestEmbeddingMigrationAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, models := playgroundtest.Start(t)
		s := testserver.Start(t, d, models)
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Notes", "source_type": "custom_index"})
		wantStatus(t, r, http.StatusCreated)
		var src map[string]any
		r.JSON(t, &src)
		sid := src["id"].(string)
		oldDims := int(src["dimensions"].(float64))
		var ids []string
		for _, doc := range []string{docOtters, docRust} {
			r = s.Do(t, "POST", "/sources/"+sid, s.Key, map[string]any{"text": doc, "content_type": "text/markdown"})
			wantStatus(t, r, http.StatusOK)
			var up map[string]any
			r.JSON(t, &up)
			ids = append(ids, up["source_connection_content_version_id"].(string))
		}
		for _, id := range ids {
			waitIndexed(t, s, s.Key, id, "")
		}
		r = s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{sid}})
		wantStatus(t, r, http.StatusCreated)
		var kb map[string]any
		r.JSON(t, &kb)
		kbID := kb["id"].(string)
		before := search(t, s, s.Key, kbID, map[string]any{"query": "otters hold hands"})
		if len(before.Results) == 0 || before.Results[0].Title == "" {
			t.Fatalf("search before: %+v", before)
		}

		// None yet: null.
		r = s.Do(t, "GET", "/sources/"+sid+"/embedding-migration", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if strings.TrimSpace(string(r.Body)) != "null" {
			t.Fatalf("no migration: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid+"/embedding-migration/cancel", s.Key, nil), http.StatusConflict)
		// Same model and size, re-chunking, unknown model: refused.
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": src["embedding_model"], "target_dimensions": oldDims}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": src["embedding_model"], "target_dimensions": 128, "chunk_size": 500}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": "no-such-model", "target_dimensions": 128}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources/"+store.NewID()+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": src["embedding_model"], "target_dimensions": 128}), http.StatusNotFound)

		r = s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": src["embedding_model"], "target_dimensions": 128})
		wantStatus(t, r, http.StatusOK)
		m := waitMigration(t, s, sid)
		if m["status"] != "completed" || m["target_dimensions"] != float64(128) || m["progress_total"].(float64) < 2 {
			t.Fatalf("migration: %v", m)
		}
		got, err := knowledge.TestRows(s.DB).Source(context.Background(), s.AccountID, sid)
		if err != nil || got.Dimensions != 128 {
			t.Fatalf("source after the switch: %d %v", got.Dimensions, err)
		}
		n := 0
		if err := knowledge.TestRows(s.DB).SourceVectors(context.Background(), sid, 0, func(v knowledge.VectorRow) error {
			if v.Dims != 128 || len(v.Vector) != 128 {
				t.Errorf("chunk %d has %d dimensions", v.Seq, v.Dims)
			}
			n++
			return nil
		}); err != nil || n < 2 {
			t.Fatalf("%d vectors, %v", n, err)
		}
		after := search(t, s, s.Key, kbID, map[string]any{"query": "otters hold hands"})
		if len(after.Results) == 0 || after.Results[0].Title != before.Results[0].Title {
			t.Fatalf("search after the switch: %+v", after)
		}

		// A cancelled migration leaves the index as it was. This one embeds
		// through a model server that takes its time, so that the second
		// start and the cancel find it still running.
		chunks := int(m["progress_total"].(float64))
		slow := fakellm.Reply{Delay: 2 * time.Second, Embeddings: make([][]float32, chunks)}
		for i := range slow.Embeddings {
			slow.Embeddings[i] = make([]float32, 64)
			slow.Embeddings[i][i%64] = 1
		}
		fakes.OpenAI.Enqueue(slow)
		r = s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": "text-embedding-3-small", "target_dimensions": 64})
		wantStatus(t, r, http.StatusOK)
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": src["embedding_model"], "target_dimensions": 32}), http.StatusConflict)
		wantStatus(t, s.Do(t, "POST", "/sources/"+sid+"/embedding-migration/cancel", s.Key, nil), http.StatusOK)
		m = waitMigration(t, s, sid)
		if m["status"] != "cancelled" {
			t.Fatalf("cancelled migration: %v", m)
		}
		if got, _ := knowledge.TestRows(s.DB).Source(context.Background(), s.AccountID, sid); got.Dimensions != 128 {
			t.Fatalf("a cancelled migration changed the source to %d dimensions", got.Dimensions)
		}
		if res := search(t, s, s.Key, kbID, map[string]any{"query": "ownership borrowing"}); len(res.Results) == 0 {
			t.Fatal("search fails after the cancel")
		}
	})
}
