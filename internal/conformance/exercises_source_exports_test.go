package conformance

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/exports"
)

// Source exports. A source with one content is stored directly (its text
// in the blob store); a pending export is a row without a job, so it is
// still pending when cancel or download arrives.

const sxPath = "/sources/{source_connection_id}/exports"

func sxSource(t *testing.T, e *Env) Vars {
	ctx := context.Background()
	src, err := knowledge.TestRows(e.DB).CreateSource(ctx, knowledge.Source{AccountID: e.Tenant.AccountID, Name: "docs", SourceType: "custom_index",
		ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 384, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	key := "conformance/" + src.ID + "/text.txt"
	if _, err := e.S.Blobs.Put(ctx, key, "text/plain", strings.NewReader("Exported text.")); err != nil {
		t.Fatal(err)
	}
	title := "Doc"
	if err := e.DB.Tx(ctx, func(tx *sql.Tx) error {
		_, err := knowledge.TestRows(e.DB).CreateContent(ctx, tx, knowledge.Content{AccountID: e.Tenant.AccountID, SourceID: src.ID, Title: &title,
			ContentType: "text/plain", ContentURL: "inline://doc", Filename: "doc.txt", BlobKey: key, SHA256: "x", SizeBytes: 14,
			Metadata: map[string]any{"team": "docs"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return Vars{"source_connection_id": src.ID}
}

func sxPending(t *testing.T, e *Env) Vars {
	v := sxSource(t, e)
	x, err := e.S.SourceExports.PendingForTest(context.Background(), exports.SourceExport{AccountID: e.Tenant.AccountID, SourceID: v["source_connection_id"],
		Format: exports.CSV})
	if err != nil {
		t.Fatal(err)
	}
	v["export_id"] = x.ID
	return v
}

func sxCompleted(t *testing.T, e *Env) Vars {
	v := sxSource(t, e)
	ctx := context.Background()
	x, err := e.S.SourceExports.Create(ctx, e.Tenant.AccountID, v["source_connection_id"], exports.Requester{UserID: e.Tenant.UserID},
		exports.Request{Format: exports.JSONL})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		got, err := e.S.SourceExports.Get(ctx, e.Tenant.AccountID, v["source_connection_id"], x.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == exports.ExportCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("export still %s", got.Status)
		}
		time.Sleep(30 * time.Millisecond)
	}
	v["export_id"] = x.ID
	return v
}

func init() {
	unknownSource := "/sources/0190a3b4-0000-7000-8000-000000000000/exports"
	one := sxPath + "/{export_id}"
	register(
		Exercise{Op: "POST " + sxPath, Name: "jsonl with filters", Status: http.StatusAccepted, Setup: sxSource,
			Body: map[string]any{"format": "jsonl", "metadata_filter": map[string]any{"team": "docs"}, "query_filter": "doc",
				"date_from": "2026-01-01T00:00:00Z"}},
		Exercise{Op: "POST " + sxPath, Name: "parquet", Status: http.StatusAccepted, Setup: sxSource, Body: map[string]any{"format": "parquet"}},
		Exercise{Op: "POST " + sxPath, Name: "unknown format", Status: http.StatusUnprocessableEntity, Setup: sxSource, Body: map[string]any{"format": "xml"}},
		Exercise{Op: "POST " + sxPath, Name: "unknown source", Status: http.StatusNotFound, Path: unknownSource, Body: map[string]any{"format": "csv"}},
		Exercise{Op: "POST " + sxPath + "/estimate", Name: "csv", Status: http.StatusOK, Setup: sxSource, Body: map[string]any{"format": "csv"}},
		Exercise{Op: "POST " + sxPath + "/estimate", Name: "missing format", Status: http.StatusUnprocessableEntity, Setup: sxSource, Body: map[string]any{}},
		Exercise{Op: "GET " + sxPath, Name: "a page", Status: http.StatusOK, Setup: sxCompleted, Path: sxPath + "?page=1&limit=5"},
		Exercise{Op: "GET " + sxPath, Name: "limit over 100", Status: http.StatusUnprocessableEntity, Setup: sxSource, Path: sxPath + "?limit=101"},
		Exercise{Op: "GET " + one, Name: "completed", Status: http.StatusOK, Setup: sxCompleted},
		Exercise{Op: "GET " + one, Name: "export id not a uuid", Status: http.StatusUnprocessableEntity, Setup: sxSource, Path: sxPath + "/nope"},
		Exercise{Op: "POST " + one + "/cancel", Name: "pending", Status: http.StatusOK, Setup: sxPending},
		Exercise{Op: "POST " + one + "/cancel", Name: "completed cannot be cancelled", Status: http.StatusConflict, Setup: sxCompleted},
		Exercise{Op: "GET " + one + "/download", Name: "completed", Status: http.StatusOK, Setup: sxCompleted},
		Exercise{Op: "GET " + one + "/download", Name: "not completed yet", Status: http.StatusConflict, Setup: sxPending},
		Exercise{Op: "DELETE " + one, Name: "completed", Status: http.StatusNoContent, Setup: sxCompleted},
		Exercise{Op: "DELETE " + one, Name: "unknown", Status: http.StatusNotFound, Setup: sxSource, Path: sxPath + "/0190a3b4-0000-7000-8000-000000000000"},
	)
}

func init() {
	// The contract declares a 422 for these; a malformed id is one.
	one := sxPath + "/nope"
	register(
		Exercise{Op: "DELETE " + sxPath + "/{export_id}", Name: "export id not a uuid", Status: http.StatusUnprocessableEntity, Setup: sxSource, Path: one},
		Exercise{Op: "GET " + sxPath + "/{export_id}/download", Name: "export id not a uuid", Status: http.StatusUnprocessableEntity, Setup: sxSource, Path: one + "/download"},
		Exercise{Op: "POST " + sxPath + "/{export_id}/cancel", Name: "export id not a uuid", Status: http.StatusUnprocessableEntity, Setup: sxSource, Path: one + "/cancel"},
	)
}
