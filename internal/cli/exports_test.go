package cli_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func exportSource(t *testing.T, ts *testserver.Server) string {
	t.Helper()
	ctx := context.Background()
	src, err := knowledge.TestRows(ts.DB).CreateSource(ctx, knowledge.Source{AccountID: ts.AccountID, Name: "docs", SourceType: "custom_index",
		ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 384, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	for i, team := range []string{"docs", "sales", "docs"} {
		key := "cli/" + src.ID + "/" + team + string(rune('0'+i))
		text := "Text number " + string(rune('0'+i)) + " of " + team
		if _, err := ts.S.Blobs.Put(ctx, key, "text/plain", strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
		title := "Note " + string(rune('0'+i))
		if err := ts.DB.Tx(ctx, func(tx *sql.Tx) error {
			_, err := knowledge.TestRows(ts.DB).CreateContent(ctx, tx, knowledge.Content{AccountID: ts.AccountID, SourceID: src.ID, Title: &title,
				ContentType: "text/plain", ContentURL: "inline://" + title, Filename: "n.txt", BlobKey: key, SHA256: key,
				SizeBytes: int64(len(text)), Metadata: map[string]any{"team": team}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	return src.ID
}

func TestExportsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key, "-o", "json"}
		src := exportSource(t, ts)

		var est client.SourceExportEstimate
		run(t, append(g, "exports", "estimate", src, "--format", "csv")...).ok(t, &est)
		if est.EstimatedSizeBytes <= 0 || est.SourceConnectionID != src {
			t.Fatalf("estimate %+v", est)
		}
		var e client.SourceExport
		run(t, append(g, "exports", "create", src, "--format", "jsonl", "--metadata-filter", `{"team":"docs"}`, "--wait")...).ok(t, &e)
		if e.Status != "completed" || e.ItemCount == nil || *e.ItemCount != 2 {
			t.Fatalf("create --wait: %+v", e)
		}
		file := filepath.Join(t.TempDir(), "out.jsonl")
		r := run(t, append(g, "exports", "download", src, e.ID, "-O", file)...)
		r.ok(t, nil)
		data, err := os.ReadFile(file)
		if err != nil || strings.Count(string(data), "\n") != 2 || !strings.Contains(string(data), "Text number 2 of docs") || strings.Contains(string(data), "sales") {
			t.Fatalf("downloaded %q %v", data, err)
		}
		var list []client.SourceExport
		run(t, append(g, "exports", "list", src)...).ok(t, &list)
		if len(list) != 1 || list[0].ID != e.ID {
			t.Fatalf("list %+v", list)
		}
		run(t, append(g, "exports", "get", src, e.ID)...).ok(t, &e)
		run(t, append(g, "exports", "cancel", src, e.ID)...).exits(t, 6, "409")
		run(t, append(g, "exports", "create", src, "--date-from", "yesterday")...).exits(t, 2, "--date-from")
		run(t, append(g, "exports", "delete", src, e.ID)...).ok(t, nil)
		run(t, append(g, "exports", "get", src, e.ID)...).exits(t, 4, "404")
	})
}
