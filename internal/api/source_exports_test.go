package api_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// seedSource makes a custom_index source of the account with n text
// contents (their text in the blob store as the indexing pipeline leaves
// it); content i has metadata {"team": "a"} when i is even, else "b", and
// the title "Doc i". It returns the source id and the time between the
// first half and the second half of the contents' creation.
func seedSource(t *testing.T, s *testserver.Server, accountID string, n int) (string, time.Time) {
	t.Helper()
	ctx := context.Background()
	src, err := knowledge.TestRows(s.DB).CreateSource(ctx, knowledge.Source{AccountID: accountID, Name: "docs", SourceType: "custom_index",
		ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 384, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	var middle time.Time
	for i := range n {
		if i == n/2 {
			time.Sleep(20 * time.Millisecond)
			middle = time.Now().UTC()
			time.Sleep(20 * time.Millisecond)
		}
		team := "a"
		if i%2 == 1 {
			team = "b"
		}
		title := fmt.Sprintf("Doc %d", i)
		text := fmt.Sprintf("Body of document %d, with a comma.\nSecond line.", i)
		key := fmt.Sprintf("test/%s/%d/text.txt", src.ID, i)
		if _, err := s.S.Blobs.Put(ctx, key, "text/plain", strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
		err := s.DB.Tx(ctx, func(tx *sql.Tx) error {
			c, err := knowledge.TestRows(s.DB).CreateContent(ctx, tx, knowledge.Content{AccountID: accountID, SourceID: src.ID, Title: &title,
				ContentType: "text/plain", ContentURL: "inline://" + title, Filename: title + ".txt", BlobKey: key,
				SHA256: fmt.Sprint(i), SizeBytes: int64(len(text)), Metadata: map[string]any{"team": team, "n": i}})
			if err != nil {
				return err
			}
			_ = c
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return src.ID, middle
}

func waitExport(t *testing.T, s *testserver.Server, key, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := s.Do(t, "GET", path, key, nil)
		wantStatus(t, r, http.StatusOK)
		var e map[string]any
		r.JSON(t, &e)
		switch e["status"] {
		case "completed", "failed", "cancelled":
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("export still %v: %s", e["status"], r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSourceExportsAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		srcID, middle := seedSource(t, s, s.AccountID, 6)
		base := "/sources/" + srcID + "/exports"

		r := s.Do(t, "POST", base+"/estimate", s.Key, map[string]any{"format": "jsonl"})
		wantStatus(t, r, http.StatusOK)
		var est map[string]any
		r.JSON(t, &est)
		if n, _ := est["estimated_size_bytes"].(float64); n < 6*40 || est["source_connection_id"] != srcID {
			t.Errorf("estimate %s", r.Body)
		}

		files := map[string][]byte{}
		for _, format := range []string{"jsonl", "csv", "parquet", "zip"} {
			r := s.Do(t, "POST", base, s.Key, map[string]any{"format": format})
			wantStatus(t, r, http.StatusAccepted)
			var e map[string]any
			r.JSON(t, &e)
			if e["status"] != "pending" || e["format"] != format || e["account_id"] != s.AccountID {
				t.Fatalf("created %s", r.Body)
			}
			done := waitExport(t, s, s.Key, base+"/"+e["id"].(string))
			if done["status"] != "completed" || done["item_count"] != float64(6) || done["progress_current"] != float64(6) ||
				done["progress_total"] != float64(6) || done["expires_at"] == nil || done["file_size_bytes"] == nil {
				t.Fatalf("%s export: %v", format, done)
			}
			dl := s.Do(t, "GET", base+"/"+e["id"].(string)+"/download", s.Key, nil)
			wantStatus(t, dl, http.StatusOK)
			if !strings.Contains(dl.Header.Get("Content-Disposition"), "attachment") || int64(len(dl.Body)) != int64(done["file_size_bytes"].(float64)) {
				t.Errorf("download headers %v, %d bytes", dl.Header, len(dl.Body))
			}
			files[format] = dl.Body
		}
		// Each format holds the six contents with their text.
		if n := strings.Count(string(files["jsonl"]), "\n"); n != 6 || !strings.Contains(string(files["jsonl"]), `Body of document 3, with a comma.\nSecond line.`) {
			t.Errorf("jsonl: %s", files["jsonl"])
		}
		if rows, err := csv.NewReader(bytes.NewReader(files["csv"])).ReadAll(); err != nil || len(rows) != 7 || rows[1][4] != "Doc 0" {
			t.Errorf("csv: %v %q", err, rows)
		}
		type prow struct {
			Title string `parquet:"title"`
			Text  string `parquet:"text"`
		}
		if rows, err := parquet.Read[prow](bytes.NewReader(files["parquet"]), int64(len(files["parquet"]))); err != nil || len(rows) != 6 || rows[5].Title != "Doc 5" || !strings.HasPrefix(rows[5].Text, "Body of document 5") {
			t.Errorf("parquet: %v %+v", err, rows)
		}
		if z, err := zip.NewReader(bytes.NewReader(files["zip"]), int64(len(files["zip"]))); err != nil || len(z.File) != 7 {
			t.Errorf("zip: %v", err)
		}

		// Filters: metadata containment, title substring, dates.
		for _, tc := range []struct {
			body map[string]any
			want []string
		}{
			{map[string]any{"metadata_filter": map[string]any{"team": "a"}}, []string{"Doc 0", "Doc 2", "Doc 4"}},
			{map[string]any{"query_filter": "doc 5"}, []string{"Doc 5"}},
			{map[string]any{"date_from": middle.Format(time.RFC3339Nano)}, []string{"Doc 3", "Doc 4", "Doc 5"}},
			{map[string]any{"date_to": middle.Format(time.RFC3339Nano), "metadata_filter": map[string]any{"team": "b"}}, []string{"Doc 1"}},
		} {
			tc.body["format"] = "jsonl"
			r := s.Do(t, "POST", base, s.Key, tc.body)
			wantStatus(t, r, http.StatusAccepted)
			var e map[string]any
			r.JSON(t, &e)
			done := waitExport(t, s, s.Key, base+"/"+e["id"].(string))
			dl := s.Do(t, "GET", base+"/"+e["id"].(string)+"/download", s.Key, nil)
			var titles []string
			sc := bufio.NewScanner(bytes.NewReader(dl.Body))
			for sc.Scan() {
				var rec map[string]any
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatal(err)
				}
				titles = append(titles, rec["title"].(string))
			}
			if fmt.Sprint(titles) != fmt.Sprint(tc.want) || done["item_count"] != float64(len(tc.want)) {
				t.Errorf("filter %v: %v (%v)", tc.body, titles, done["item_count"])
			}
			if tc.body["metadata_filter"] != nil && e["metadata_filter"] == nil {
				t.Errorf("the filter is not echoed: %s", r.Body)
			}
		}

		// The list: newest first, in the {data, pagination} envelope.
		r = s.Do(t, "GET", base+"?limit=3&page=2", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var list struct {
			Data       []map[string]any `json:"data"`
			Pagination map[string]any   `json:"pagination"`
		}
		r.JSON(t, &list)
		if len(list.Data) != 3 || list.Pagination["total"] != float64(8) || list.Pagination["has_next"] != true {
			t.Errorf("list: %s", r.Body)
		}

		// Cancel and delete.
		first := list.Data[0]["id"].(string)
		wantStatus(t, s.Do(t, "POST", base+"/"+first+"/cancel", s.Key, nil), http.StatusConflict)
		wantStatus(t, s.Do(t, "DELETE", base+"/"+first, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "GET", base+"/"+first, s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", base+"/"+first+"/download", s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "DELETE", base+"/"+first, s.Key, nil), http.StatusNotFound)

		// Bad input and unknown ids.
		wantStatus(t, s.Do(t, "POST", base, s.Key, map[string]any{"format": "xml"}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", base, s.Key, map[string]any{}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", base, s.Key, map[string]any{"format": "csv", "metadata_filter": map[string]any{"x": map[string]any{"$bogus": 1}}}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", base, s.Key, map[string]any{"format": "csv", "date_from": "2026-02-01T00:00:00Z", "date_to": "2026-01-01T00:00:00Z"}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "POST", "/sources/"+store.NewID()+"/exports", s.Key, map[string]any{"format": "csv"}), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", base+"/"+store.NewID(), s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", base+"/not-a-uuid", s.Key, nil), http.StatusUnprocessableEntity)
	})
}
