package memory_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// BenchmarkChatTurnRoundTrip measures what add_chat_turn and
// load_chat_history do inside a run (store a turn durably, then load the
// newest 20 turns and render them) on SQLite with 10,000 turns already in
// the partition. It reports the p50 and p99 of one round trip.
//
//	go test -run '^$' -bench BenchmarkChatTurnRoundTrip -benchtime 2000x ./internal/memory/
func BenchmarkChatTurnRoundTrip(b *testing.B) {
	s := testserver.Start(b, store.SQLite)
	ctx := context.Background()
	bk, err := s.S.Memory.CreateBank(ctx, s.AccountID, memory.BankInput{Name: ptr("Bench"), Type: ptr(memory.TypeConversation)})
	if err != nil {
		b.Fatal(err)
	}
	speaker := "user"
	for i := range 10_000 {
		if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: bk.ID, Partition: "customer-1", Speaker: &speaker,
			Content: fmt.Sprintf("Turn %d: the customer asks about order %d and its delivery date.", i, 1000+i), Tokens: 14}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := s.S.Memory.Add(ctx, bk, memory.Write{Partition: "customer-1", Speaker: &speaker, Content: fmt.Sprintf("Bench turn %d about order 4417.", i)}); err != nil {
			b.Fatal(err)
		}
		list, err := s.S.Memory.History(ctx, bk, "customer-1", 20, 0)
		if err != nil || len(list) != 20 {
			b.Fatalf("history: %d %v", len(list), err)
		}
		_ = memory.Transcript(list)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

// BenchmarkCompact1000 measures one compaction of a partition of 1,000
// entries (over max_turns 1,000 by one) with the offline model: the
// summary call and the replace transaction.
//
//	go test -run '^$' -bench BenchmarkCompact1000 -benchtime 5x ./internal/memory/
func BenchmarkCompact1000(b *testing.B) {
	s := testserver.Start(b, store.SQLite)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bk, err := s.S.Memory.CreateBank(ctx, s.AccountID, memory.BankInput{Name: ptr("Bench"), Type: ptr(memory.TypeConversation), MaxTurns: ptr(999)})
		if err != nil {
			b.Fatal(err)
		}
		for j := range 1000 {
			f := facts[j%len(facts)]
			if _, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: bk.ID, Partition: "p",
				Content: fmt.Sprintf("Entry %d. %s", j, f), Tokens: llm.EstimateTokens(f)}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		c, err := s.S.Memory.CompactPartition(ctx, bk, "p", llm.CallMeta{})
		if err != nil || c.Replaced == 0 {
			b.Fatalf("compaction: %+v %v", c, err)
		}
	}
}

// BenchmarkAddMemoryEntry measures one durable insert of an entry (what
// add_chat_turn and POST …/entries do in the store), with the bank's stat
// totals kept in the same transaction, into a bank of 10,000 entries over
// 100 keys, on each database. It reports the p50 and p95 of one insert.
//
//	go test -run '^$' -bench BenchmarkAddMemoryEntry -benchtime 2000x ./internal/memory/
func BenchmarkAddMemoryEntry(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			s := testserver.Start(b, d)
			ctx := context.Background()
			bk, err := s.S.Memory.CreateBank(ctx, s.AccountID, memory.BankInput{Name: ptr("Bench"), Type: ptr(memory.TypeConversation)})
			if err != nil {
				b.Fatal(err)
			}
			speakers := []string{"user", "assistant"}
			tags := [][]string{nil, nil, {"vip"}, {"refund", "vip"}}
			add := func(i int) error {
				_, err := memory.TestRows(s.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: s.AccountID, BankID: bk.ID, Partition: fmt.Sprintf("customer-%03d", i%100),
					Speaker: &speakers[i%2], Tags: tags[i%len(tags)], Content: fmt.Sprintf("Turn %d: the customer asks about order %d.", i, 1000+i), Tokens: 10 + i%40})
				return err
			}
			for i := range 10_000 {
				if err := add(i); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if err := add(i); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*95/100)].Microseconds())/1000, "p95-ms")
		})
	}
}
