package extract

import (
	"bytes"
	"math/rand"
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
