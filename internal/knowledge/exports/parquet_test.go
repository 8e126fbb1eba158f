package exports_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/agentry/agentry/internal/knowledge/exports"
)

// The Parquet writer is our own; these tests read what it writes with an
// independent reader, parquet-go, which the binary no longer links.

// readBack is every column of the file, as the reader gives it.
type readBack struct {
	ID          string     `parquet:"id"`
	SourceID    string     `parquet:"source_connection_id"`
	VersionID   string     `parquet:"content_version_id"`
	Version     int64      `parquet:"version"`
	Title       string     `parquet:"title"`
	URL         string     `parquet:"url"`
	ContentType string     `parquet:"content_type"`
	Status      string     `parquet:"status"`
	Metadata    string     `parquet:"metadata"`
	Text        string     `parquet:"text"`
	CreatedAt   time.Time  `parquet:"created_at,timestamp(millisecond)"`
	UpdatedAt   time.Time  `parquet:"updated_at,timestamp(millisecond)"`
	PublishedAt *time.Time `parquet:"published_at,optional,timestamp(millisecond)"`
}

const wantSchema = `message schema {
	required binary id (STRING);
	required binary source_connection_id (STRING);
	required binary content_version_id (STRING);
	required int64 version (INT(64,true));
	required binary title (STRING);
	required binary url (STRING);
	required binary content_type (STRING);
	required binary status (STRING);
	required binary metadata (STRING);
	required binary text (STRING);
	required int64 created_at (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));
	required int64 updated_at (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));
	optional int64 published_at (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));
}`

// writeParquet writes recs and opens the file with the independent reader,
// checking the footer's metadata against the file as it goes.
func writeParquet(t testing.TB, recs []exports.Record) (*parquet.File, []readBack) {
	t.Helper()
	var b bytes.Buffer
	n, err := exports.WriteAll(exports.Parquet, &b, func(yield func(exports.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	})
	if err != nil || n != len(recs) {
		t.Fatal(n, err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Schema().String(); got != wantSchema {
		t.Fatalf("schema\n%s\nwant\n%s", got, wantSchema)
	}
	md := f.Metadata()
	if md.NumRows != int64(len(recs)) {
		t.Fatalf("footer says %d rows, wrote %d", md.NumRows, len(recs))
	}
	// The chunks' offsets and sizes tile the file from the magic number
	// to the footer, which a stricter reader relies on.
	var rows int64
	next := int64(4)
	for _, g := range md.RowGroups {
		rows += g.NumRows
		var uncompressed, compressed int64
		for i, c := range g.Columns {
			m := c.MetaData
			if m.Codec != format.Gzip || m.NumValues != g.NumRows || len(m.PathInSchema) != 1 || m.PathInSchema[0] != f.Schema().Fields()[i].Name() {
				t.Fatalf("column chunk %d: %+v", i, m)
			}
			if m.DataPageOffset != next || c.FileOffset != next {
				t.Fatalf("column chunk %d at %d, the previous one ended at %d", i, m.DataPageOffset, next)
			}
			next += m.TotalCompressedSize
			uncompressed += m.TotalUncompressedSize
			compressed += m.TotalCompressedSize
		}
		if g.TotalByteSize != uncompressed || g.TotalCompressedSize != compressed || g.FileOffset != g.Columns[0].MetaData.DataPageOffset {
			t.Fatalf("row group sizes %+v, its chunks add up to %d and %d", g, uncompressed, compressed)
		}
	}
	if footer := int64(binary.LittleEndian.Uint32(b.Bytes()[b.Len()-8:])); next != int64(b.Len())-8-footer {
		t.Fatalf("the column chunks end at %d, the footer starts at %d", next, int64(b.Len())-8-footer)
	}
	if rows != md.NumRows {
		t.Fatalf("row groups hold %d rows, footer says %d", rows, md.NumRows)
	}
	got, err := parquet.Read[readBack](bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(recs))
	}
	for i, r := range recs {
		same(t, i, r, got[i])
	}
	return f, got
}

func same(t testing.TB, i int, r exports.Record, g readBack) {
	t.Helper()
	meta, _ := json.Marshal(r.Metadata)
	if r.Metadata == nil {
		meta = []byte("{}")
	}
	want := readBack{ID: r.ID, SourceID: r.SourceID, VersionID: r.VersionID, Version: int64(r.Version), Title: r.Title, URL: r.URL,
		ContentType: r.ContentType, Status: r.Status, Metadata: string(meta), Text: r.Text}
	if g.ID != want.ID || g.SourceID != want.SourceID || g.VersionID != want.VersionID || g.Version != want.Version || g.Title != want.Title ||
		g.URL != want.URL || g.ContentType != want.ContentType || g.Status != want.Status || g.Metadata != want.Metadata || g.Text != want.Text {
		t.Fatalf("row %d: read %.300s\nwrote %.300s", i, fmt.Sprintf("%+v", g), fmt.Sprintf("%+v", want))
	}
	if !g.CreatedAt.Equal(r.CreatedAt.Truncate(time.Millisecond)) || !g.UpdatedAt.Equal(r.UpdatedAt.Truncate(time.Millisecond)) {
		t.Fatalf("row %d: times %v %v, wrote %v %v", i, g.CreatedAt, g.UpdatedAt, r.CreatedAt, r.UpdatedAt)
	}
	switch {
	case r.PublishedAt == nil && g.PublishedAt != nil, r.PublishedAt != nil && g.PublishedAt == nil:
		t.Fatalf("row %d: published_at %v, wrote %v", i, g.PublishedAt, r.PublishedAt)
	case r.PublishedAt != nil && !g.PublishedAt.Equal(r.PublishedAt.Truncate(time.Millisecond)):
		t.Fatalf("row %d: published_at %v, wrote %v", i, g.PublishedAt, r.PublishedAt)
	}
}

func TestParquetRoundTrip(t *testing.T) {
	base := time.Date(2026, 11, 2, 3, 4, 5, 678_000_000, time.UTC)
	var recs []exports.Record
	for i := range 1000 {
		r := exports.Record{ID: strings.Repeat("c", 1+i%7) + string(rune('a'+i%26)), SourceID: "s1", VersionID: "v" + string(rune('0'+i%10)),
			Version: i - 500, Title: "Titel — ünïcödé 日本語 🚀", URL: "https://example.org/" + string(rune('a'+i%26)),
			ContentType: "text/plain", Status: "indexed", Metadata: map[string]any{"n": float64(i), "team": "docs"},
			Text:      strings.Repeat("text of item\nwith, commas ", i%40),
			CreatedAt: base.Add(time.Duration(i) * time.Second), UpdatedAt: base.In(time.FixedZone("x", 3600)).Add(time.Duration(i) * time.Hour)}
		switch i % 5 {
		case 0, 3:
			p := base.Add(-time.Duration(i) * time.Hour)
			r.PublishedAt = &p
		case 1: // every string empty, no metadata
			r.ID, r.SourceID, r.VersionID, r.Title, r.URL, r.ContentType, r.Status, r.Text, r.Metadata = "", "", "", "", "", "", "", "", nil
		case 2: // before the epoch
			r.CreatedAt = time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC)
			p := time.Date(1901, 1, 1, 0, 0, 0, 0, time.UTC)
			r.PublishedAt = &p
		}
		recs = append(recs, r)
	}
	f, _ := writeParquet(t, recs)
	groups := f.Metadata().RowGroups
	if len(groups) != 4 || groups[0].NumRows != 256 || groups[3].NumRows != 1000-3*256 {
		t.Fatalf("%d row groups: %+v", len(groups), groups)
	}
}

// TestParquetByteBound: a row group ends when its values reach 16 MiB,
// however few rows it has; a text larger than a page is cut into pages.
func TestParquetByteBound(t *testing.T) {
	var recs []exports.Record
	for i := range 20 {
		text := strings.Repeat(string(rune('a'+i))+"é", 3<<20/3) // 3 MiB
		at := time.Date(2026, 11, 28, 0, 0, i, 0, time.UTC)
		recs = append(recs, exports.Record{ID: string(rune('a' + i)), Text: text, Metadata: map[string]any{}, CreatedAt: at, UpdatedAt: at})
	}
	recs[5].Text = strings.Repeat("x", 9<<20) + "end"
	f, _ := writeParquet(t, recs)
	groups := f.Metadata().RowGroups
	if len(groups) < 3 {
		t.Fatalf("%d row groups for 66 MiB of text", len(groups))
	}
	for _, g := range groups {
		if g.NumRows > 6 {
			t.Errorf("a row group of %d rows of 3 MiB each", g.NumRows)
		}
	}
	pages := f.RowGroups()[0].ColumnChunks()[9].Pages()
	defer pages.Close()
	n := 0
	for {
		if _, err := pages.ReadPage(); err != nil {
			break
		}
		n++
	}
	if n < 3 {
		t.Errorf("the text column of the first row group is in %d pages", n)
	}
}

func TestParquetZeroRows(t *testing.T) {
	f, rows := writeParquet(t, nil)
	if len(f.Metadata().RowGroups) != 0 || len(rows) != 0 {
		t.Fatalf("%d row groups, %d rows", len(f.Metadata().RowGroups), len(rows))
	}
}

// FuzzParquetWriter writes records of arbitrary strings, numbers and
// times, in any number of row groups, and reads them back.
func FuzzParquetWriter(f *testing.F) {
	f.Add("id", "Title", "text", `{"k":"v"}`, int64(3), int64(1_790_000_000_000), int64(-1), uint16(3))
	f.Add("", "", "", "", int64(0), int64(0), int64(0), uint16(0))
	f.Add("é\x00\xff", "🚀\n\"", strings.Repeat("long ", 200), "x", int64(-1<<40), int64(-5_000_000_000_000), int64(7_000_000_000_000), uint16(299))
	f.Fuzz(func(t *testing.T, id, title, text, meta string, version, created, published int64, n uint16) {
		const ms = 9_000_000_000_000 // years 1685 to 2255: what a time.Time in nanoseconds holds
		created %= ms
		published %= ms
		var recs []exports.Record
		for i := range int(n % 300) {
			r := exports.Record{ID: id + string(rune('a'+i%26)), SourceID: meta, VersionID: title[:len(title)*(i%2)], Version: int(version) + i,
				Title: title, URL: id, ContentType: text[:len(text)/(1+i%3)], Status: meta, Metadata: map[string]any{"m": meta, "i": float64(i)},
				Text: text, CreatedAt: time.UnixMilli(created + int64(i)), UpdatedAt: time.UnixMilli(published)}
			if (published+int64(i))%3 != 0 {
				p := time.UnixMilli(published - int64(i))
				r.PublishedAt = &p
			}
			recs = append(recs, r)
		}
		writeParquet(t, recs)
	})
}
