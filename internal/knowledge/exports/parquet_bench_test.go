package exports_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge/exports"
)

// benchRecords are n records shaped like a crawled source's: a few short
// fields, a small metadata object and a text of a few kilobytes.
func benchRecords(n int) []exports.Record {
	recs := make([]exports.Record, n)
	created := time.Date(2026, 11, 2, 3, 4, 5, 0, time.UTC)
	words := strings.Fields(`the a of to and in is it that for on with as by this be are from at or an was which
		agent source export record page text file column group row writer reader index search model answer
		question document handbook policy team customer account billing invoice refund shipping order
		product release note version update security access token key limit quota retry error timeout
		request response queue job worker schedule report metric trace log event hook webhook channel`)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range recs {
		recs[i] = exports.Record{ID: fmt.Sprintf("cnt_%08d", i), SourceID: "src_0001", VersionID: fmt.Sprintf("ver_%08d", i), Version: 1 + i%3,
			Title: fmt.Sprintf("Page %d of the handbook", i), URL: fmt.Sprintf("https://example.org/handbook/%d", i),
			ContentType: "text/html", Status: "indexed", Metadata: map[string]any{"team": "docs", "n": float64(i)},
			Text:      prose(rng, words, 1000+rng.IntN(4000)),
			CreatedAt: created.Add(time.Duration(i) * time.Second), UpdatedAt: created.Add(time.Duration(i) * time.Minute)}
		if i%3 != 0 {
			p := created.Add(-time.Duration(i) * time.Hour)
			recs[i].PublishedAt = &p
		}
	}
	return recs
}

// BenchmarkParquetWriter writes 10,000 records (about 30 MB of text) as
// Parquet; its numbers are in docs/performance.md.
func BenchmarkParquetWriter(b *testing.B) {
	recs := benchRecords(10000)
	cw := &countWriter{}
	b.ReportAllocs()
	for b.Loop() {
		cw.n = 0
		w, err := exports.NewWriter(exports.Parquet, cw)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cw.n), "file-bytes")
}

// prose is about n bytes of words drawn at random: compressible as text
// is, unlike one sentence repeated.
func prose(rng *rand.Rand, words []string, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(12) == 0 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
