package extract

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPDFStructureCheck measures the pre-read of a PDF over binary
// data (the bulk of large PDFs is image streams).
func BenchmarkPDFStructureCheck(b *testing.B) {
	data := make([]byte, 16<<20)
	rand.New(rand.NewSource(1)).Read(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := checkPDFStructure(bytes.NewReader(data), DefaultMaxDecompressedBytes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPDFSharedText measures the extraction of the shared pdfTeX
// manual (36 pages) from parse to laid-out text.
func BenchmarkPDFSharedText(b *testing.B) {
	dir, err := sharedDir("datasets/pdfs")
	if err != nil {
		b.Skip(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "libtasn1.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := bytes.NewReader(data)
		if _, err := Extract(context.Background(), "application/pdf", Source{R: r, RA: r, Size: int64(len(data))}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPDFLayoutScattered measures the layout of a page as full as
// one is allowed to be (maxPageWords), with every word apart from the
// others, so that each is a block of its own. Reported per word.
func BenchmarkPDFLayoutScattered(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tw := newTextWriter(context.Background(), io.Discard, 0)
		p := &pageLayout{out: &pageWriter{w: tw}, maxText: 1 << 30}
		for k := 0; k < maxPageWords; k++ {
			x, y := float64(k%1000)*30, -float64(k)*30
			p.add("w", x, y, x+5, y, 10, 1, 0)
		}
		p.flush()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*maxPageWords), "ns/word")
}
