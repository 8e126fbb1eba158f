package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/testserver"
)

// Embedding migrations: B can neither start, read nor cancel a migration
// of A's source.
func init() {
	const path = "/sources/{source_connection_id}/embedding-migration"
	register(
		Case{
			Op: "POST " + path, Name: "B cannot migrate A's source",
			Setup: migrationSourceOfA, Body: map[string]any{"target_embedding_model": "agentry_offline_embed", "target_dimensions": 64},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if m, _ := c.S.Knowledge.LatestMigrationForTest(context.Background(), c.B.AccountID, c.Vars["source_connection_id"]); m.ID != "" {
					t.Error("B started a migration of A's source")
				}
			},
			// A's own request meets A's pending migration: the source is there.
			Control: Status(http.StatusConflict),
		},
		Case{Op: "GET " + path, Name: "B cannot read the migration of A's source", Setup: migrationSourceOfA, Expect: NotFound()},
		Case{Op: "POST " + path + "/cancel", Name: "B cannot cancel A's migration", Setup: migrationSourceOfA, Expect: NotFound(),
			Control: Status(http.StatusOK)},
	)
}

// migrationSourceOfA makes a source of A with a pending migration (a row
// without a job, so it stays cancellable).
func migrationSourceOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	ctx := context.Background()
	src, err := knowledge.TestRows(c.DB).CreateSource(ctx, knowledge.Source{AccountID: c.A.AccountID, Name: "a-docs", SourceType: "custom_index",
		ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "agentry_offline_embed", Dimensions: 256, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.S.Knowledge.PendingMigrationForTest(ctx, knowledge.EmbeddingMigration{AccountID: c.A.AccountID, SourceID: src.ID,
		OldModel: "agentry_offline_embed", OldDims: 256, TargetModel: "agentry_offline_embed", TargetDims: 128}); err != nil {
		t.Fatal(err)
	}
	return Vars{"source_connection_id": src.ID}
}
