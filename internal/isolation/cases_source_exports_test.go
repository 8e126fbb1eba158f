package isolation

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/exports"
	"github.com/agentry/agentry/internal/testserver"
)

// Source exports: B can neither export A's source nor see, download,
// cancel or delete A's exports.
func init() {
	const base = "/sources/{source_connection_id}/exports"
	register(
		Case{
			Op: "GET " + base, Name: "B cannot list the exports of A's source",
			Setup: exportOfA(true), Expect: NotFound(),
		},
		Case{
			Op: "POST " + base, Name: "B cannot export A's source",
			Setup: exportOfA(false), Body: map[string]any{"format": "jsonl"},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if n, _ := c.S.SourceExports.CountForTest(context.Background(), c.B.AccountID, c.Vars["source_connection_id"]); n != 0 {
					t.Errorf("B made %d exports of A's source", n)
				}
			},
			Control: Status(http.StatusAccepted),
		},
		Case{
			Op: "POST " + base + "/estimate", Name: "B cannot estimate A's source",
			Setup: exportOfA(false), Body: map[string]any{"format": "csv"}, Expect: NotFound(),
		},
		Case{
			Op: "GET " + base + "/{export_id}", Name: "B cannot read A's export",
			Setup: exportOfA(true), Expect: NotFound(),
		},
		Case{
			Op: "GET " + base + "/{export_id}/download", Name: "B cannot download A's export",
			Setup: exportOfA(true),
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if strings.Contains(string(r.Body), "secret text of A") {
					t.Error("B received A's contents")
				}
			},
		},
		Case{
			Op: "POST " + base + "/{export_id}/cancel", Name: "B cannot cancel A's export",
			Setup: exportOfA(false), Expect: NotFound(), Control: Status(http.StatusOK),
		},
		Case{
			Op: "DELETE " + base + "/{export_id}", Name: "B cannot delete A's export",
			Setup: exportOfA(true),
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if _, err := c.S.SourceExports.Get(context.Background(), c.A.AccountID, c.Vars["source_connection_id"], c.Vars["export_id"]); err != nil {
					t.Errorf("A's export is gone: %v", err)
				}
			},
			Control: Status(http.StatusNoContent),
		},
	)
}

// exportOfA makes a source of A with one content and an export of it:
// completed when wait is set, else a pending row with no job, so it stays
// cancellable for A's control request.
func exportOfA(wait bool) func(t *testing.T, c *Ctx) Vars {
	return func(t *testing.T, c *Ctx) Vars {
		t.Helper()
		ctx := context.Background()
		src, err := knowledge.TestRows(c.DB).CreateSource(ctx, knowledge.Source{AccountID: c.A.AccountID, Name: "a-docs", SourceType: "custom_index",
			ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 384, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		key := "isolation/" + src.ID + "/text.txt"
		if _, err := c.S.Blobs.Put(ctx, key, "text/plain", strings.NewReader("secret text of A")); err != nil {
			t.Fatal(err)
		}
		title := "A's document"
		if err := c.DB.Tx(ctx, func(tx *sql.Tx) error {
			_, err := knowledge.TestRows(c.DB).CreateContent(ctx, tx, knowledge.Content{AccountID: c.A.AccountID, SourceID: src.ID, Title: &title,
				ContentType: "text/plain", ContentURL: "inline://a", Filename: "a.txt", BlobKey: key, SHA256: "x", SizeBytes: 16})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		vars := Vars{"source_connection_id": src.ID}
		if !wait {
			e, err := c.S.SourceExports.PendingForTest(ctx, exports.SourceExport{AccountID: c.A.AccountID, SourceID: src.ID, Format: exports.JSONL})
			if err != nil {
				t.Fatal(err)
			}
			vars["export_id"] = e.ID
			return vars
		}
		e, err := c.S.SourceExports.Create(ctx, c.A.AccountID, src.ID, exports.Requester{}, exports.Request{Format: exports.JSONL})
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); ; {
			got, err := c.S.SourceExports.Get(ctx, c.A.AccountID, src.ID, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == exports.ExportCompleted {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("A's export is %s", got.Status)
			}
			time.Sleep(30 * time.Millisecond)
		}
		vars["export_id"] = e.ID
		return vars
	}
}
