package offline

import (
	"strings"
	"testing"
)

// benchText is ~64 KB of English prose built from the retrieval passages,
// the kind of text knowledge bases embed.
func benchText(b *testing.B) string {
	var sb strings.Builder
	pairs := loadRetrieval(b)
	for sb.Len() < 64<<10 {
		for _, p := range pairs {
			sb.WriteString(p.Passage)
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// BenchmarkEmbed384 measures embedder throughput on one core; the MB/s
// column is the figure the platform targets (>= 20 MB/s per core).
func BenchmarkEmbed384(b *testing.B) {
	e := NewEmbedder(384)
	text := benchText(b)
	// Embed passage-sized chunks (~1 KB), as ingestion does.
	var chunks []string
	for i := 0; i < len(text); i += 1024 {
		chunks = append(chunks, text[i:min(i+1024, len(text))])
	}
	dst := make([]float32, 384)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range chunks {
			e.EmbedInto(dst, c)
		}
	}
}

func BenchmarkEmbed384Sentence(b *testing.B) {
	e := NewEmbedder(384)
	s := "How many days do customers have to request a refund?"
	dst := make([]float32, 384)
	b.SetBytes(int64(len(s)))
	for i := 0; i < b.N; i++ {
		e.EmbedInto(dst, s)
	}
}
