package conformance

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/knowledge"
)

// Embedding migrations of a source stored directly; a pending migration is
// a row without a job, so it is still active when cancel arrives.

const emPath = "/sources/{source_connection_id}/embedding-migration"

func emSource(t *testing.T, e *Env) Vars {
	src, err := knowledge.TestRows(e.DB).CreateSource(context.Background(), knowledge.Source{AccountID: e.Tenant.AccountID, Name: "docs", SourceType: "custom_index",
		ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "agentry_offline_embed", Dimensions: 256, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"source_connection_id": src.ID}
}

func emPending(t *testing.T, e *Env) Vars {
	v := emSource(t, e)
	if _, err := e.S.Knowledge.PendingMigrationForTest(context.Background(), knowledge.EmbeddingMigration{AccountID: e.Tenant.AccountID,
		SourceID: v["source_connection_id"], OldModel: "agentry_offline_embed", OldDims: 256, TargetModel: "agentry_offline_embed", TargetDims: 128}); err != nil {
		t.Fatal(err)
	}
	return v
}

func init() {
	register(
		Exercise{Op: "POST " + emPath, Name: "offline embedder at another size", Status: http.StatusOK, Setup: emSource,
			Body: map[string]any{"target_embedding_model": "agentry_offline_embed", "target_dimensions": 128}},
		Exercise{Op: "POST " + emPath, Name: "the current model and size", Status: http.StatusUnprocessableEntity, Setup: emSource,
			Body: map[string]any{"target_embedding_model": "agentry_offline_embed", "target_dimensions": 256}},
		Exercise{Op: "POST " + emPath, Name: "another is active", Status: http.StatusConflict, Setup: emPending,
			Body: map[string]any{"target_embedding_model": "agentry_offline_embed", "target_dimensions": 64}},
		Exercise{Op: "GET " + emPath, Name: "none yet", Status: http.StatusOK, Setup: emSource},
		Exercise{Op: "GET " + emPath, Name: "pending", Status: http.StatusOK, Setup: emPending},
		Exercise{Op: "GET " + emPath, Name: "source id not a uuid", Status: http.StatusUnprocessableEntity, Path: "/sources/nope/embedding-migration"},
		Exercise{Op: "POST " + emPath + "/cancel", Name: "pending", Status: http.StatusOK, Setup: emPending},
		Exercise{Op: "POST " + emPath + "/cancel", Name: "source id not a uuid", Status: http.StatusUnprocessableEntity, Path: "/sources/nope/embedding-migration/cancel"},
	)
}
