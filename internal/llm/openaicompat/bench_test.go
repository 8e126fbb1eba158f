package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/fakellm"
)

var benchReq = llm.ChatRequest{Model: "gpt-4o", MaxTokens: 200, Messages: []llm.Message{
	llm.System("You are a helpful assistant. Answer briefly and cite the policy."),
	llm.User("Customers may request a full refund within 30 days of purchase. How long do I have to ask for a refund?"),
}}

// BenchmarkAdapterOverhead measures what the adapter (request building,
// the wire encoding, response conversion, retry wrapper) costs beyond the network:
// each iteration makes one raw HTTP call with the same JSON body to the
// same loopback fake and one adapter call, and reports the difference.
func BenchmarkAdapterOverhead(b *testing.B) {
	s := fakellm.NewOpenAI(b)
	s.SetDefault(fakellm.Reply{Text: "You have 30 days from purchase to request a full refund.", Usage: fakellm.Usage{Input: 40, Output: 14}})
	p := New(Config{BaseURL: s.URL, APIKey: "sk"})
	params, _ := buildParams(benchReq)
	body, _ := json.Marshal(params)
	client := &http.Client{}
	raw := func() {
		req, _ := http.NewRequest("POST", s.URL+"/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ctx := context.Background()
	for i := 0; i < 50; i++ { // warm both connection pools
		raw()
		if _, err := p.Chat(ctx, benchReq); err != nil {
			b.Fatal(err)
		}
	}
	var rawT, adT time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		raw()
		t1 := time.Now()
		if _, err := p.Chat(ctx, benchReq); err != nil {
			b.Fatal(err)
		}
		adT += time.Since(t1)
		rawT += t1.Sub(t0)
	}
	b.ReportMetric(float64(rawT.Microseconds())/float64(b.N), "raw-µs/call")
	b.ReportMetric(float64(adT.Microseconds())/float64(b.N), "adapter-µs/call")
	b.ReportMetric(float64((adT-rawT).Microseconds())/float64(b.N), "overhead-µs/call")
}

// BenchmarkStreamRelayLatency measures how long a streamed token takes
// from the fake server's write (its timestamp is the chunk's text) to the
// consumer's callback, through loopback, the SDK's SSE decoder and our
// accumulator. Reports p50 and p99 over all chunks.
func BenchmarkStreamRelayLatency(b *testing.B) {
	s := fakellm.NewOpenAI(b)
	s.SetDefault(fakellm.Reply{Timestamps: true, Chunks: 200, ChunkDelay: 200 * time.Microsecond, Usage: fakellm.Usage{Input: 5, Output: 200}})
	p := New(Config{BaseURL: s.URL, APIKey: "sk"})
	lat := relayLatencies(b, p)
	reportPercentiles(b, lat)
}

func relayLatencies(b *testing.B, p llm.Provider) []time.Duration {
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := p.Stream(context.Background(), benchReq, func(d llm.Delta) error {
			if d.Text == "" {
				return nil
			}
			now := time.Now().UnixNano()
			ts, err := strconv.ParseInt(strings.TrimSpace(d.Text), 10, 64)
			if err != nil {
				b.Fatalf("chunk %q", d.Text)
			}
			lat = append(lat, time.Duration(now-ts))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return lat
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		return
	}
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.5), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-µs")
}
