package cli_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// `agentry sources migration start --wait` re-embeds an indexed source with
// another size through the server's migration job; get shows it; a cancel
// with nothing active is refused.
func TestSourceMigrationCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key, "-o", "json"}
		ctx := context.Background()
		src, err := knowledge.TestRows(ts.DB).CreateSource(ctx, knowledge.Source{AccountID: ts.AccountID, Name: "docs", SourceType: "custom_index",
			ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "agentry_offline_embed", Dimensions: 384, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		var up client.ContentUpload
		run(t, append(g, "sources", "add-text", src.ID, "Sea otters hold hands while they sleep.")...).ok(t, &up)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int
			if err := ts.DB.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1 AND dims = 384`, src.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the content was not indexed")
			}
			time.Sleep(50 * time.Millisecond)
		}
		var m client.EmbeddingMigration
		run(t, append(g, "sources", "migration", "start", src.ID, "--model", "agentry_offline_embed", "--dimensions", "128", "--wait")...).ok(t, &m)
		if m.Status != "completed" || m.TargetDimensions != 128 || m.ProgressCurrent != m.ProgressTotal || m.ProgressTotal == 0 {
			t.Fatalf("start --wait: %+v", m)
		}
		var got client.EmbeddingMigration
		run(t, append(g, "sources", "migration", "get", src.ID)...).ok(t, &got)
		if got.ID != m.ID || got.Status != "completed" {
			t.Fatalf("get: %+v", got)
		}
		var old, fresh int
		ts.DB.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1 AND dims = 384`, src.ID).Scan(&old)
		ts.DB.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1 AND dims = 128`, src.ID).Scan(&fresh)
		if old != 0 || fresh == 0 {
			t.Fatalf("after the switch: %d old-size and %d new-size passages", old, fresh)
		}
		r := run(t, append(g, "sources", "migration", "cancel", src.ID)...)
		if r.code == 0 {
			t.Fatalf("cancel with no active migration succeeded: %s", r.stdout)
		}
		run(t, append(g, "sources", "migration", "start", src.ID, "--model", "agentry_offline_embed")...).exits(t, 2, "dimensions")
	})
}
