package memory

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The memory tables on both dialects: banks scoped by account, history
// order with summaries, the atomic replace and its conflict, assistant
// turns per user.
func TestMemoryStore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct, other := storetest.NewAccount(t, db), storetest.NewAccount(t, db)
		desc := "Remembers each customer's 100% refunds"
		b, err := r.CreateMemoryBank(ctx, MemoryBank{AccountID: acct, Name: "Support chats", Description: &desc, Type: "conversation", Mode: "balanced"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.MemoryBank(ctx, other, b.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account reads the bank: %v", err)
		}
		list, total, err := r.MemoryBanks(ctx, acct, "general", "name", false, 0, 10)
		if err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("type filter: %d %v", total, err)
		}
		if _, err := r.AddMemoryEntry(ctx, Entry{AccountID: other, BankID: b.ID, Content: "x"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another account writes to the bank: %v", err)
		}
		var ids []string
		for i := range 6 {
			e, err := r.AddMemoryEntry(ctx, Entry{AccountID: acct, BankID: b.ID, Partition: "k", Content: fmt.Sprintf("turn %d", i), Tokens: 2})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		sum, err := r.ReplaceMemoryEntries(ctx, acct, b.ID, "k", ids[:4], Entry{Content: "summary of 0-3", Tokens: 3})
		if err != nil {
			t.Fatal(err)
		}
		// The same entries again: a conflict, nothing written.
		if _, err := r.ReplaceMemoryEntries(ctx, acct, b.ID, "k", ids[:4], Entry{Content: "again", Tokens: 1}); !errors.Is(err, ErrCompactionConflict) {
			t.Fatalf("second replace: %v", err)
		}
		// Partly replaced ids: a conflict that leaves the live one live.
		if _, err := r.ReplaceMemoryEntries(ctx, acct, b.ID, "k", []string{ids[3], ids[4]}, Entry{Content: "bad", Tokens: 1}); !errors.Is(err, ErrCompactionConflict) {
			t.Fatalf("partial replace: %v", err)
		}
		got, err := r.LatestMemoryEntries(ctx, acct, b.ID, "k", 10)
		if err != nil || len(got) != 3 || got[0].ID != sum.ID || got[1].Content != "turn 4" || got[2].Content != "turn 5" {
			t.Fatalf("history after replace: %+v %v", got, err)
		}
		if got, _ := r.LatestMemoryEntries(ctx, acct, b.ID, "k", 2); len(got) != 2 || got[0].Content != "turn 4" {
			t.Fatalf("newest two: %+v", got)
		}
		if got, _ := r.LatestMemoryEntries(ctx, other, b.ID, "k", 10); len(got) != 0 {
			t.Fatal("another account reads the entries")
		}
		parts, err := r.MemoryPartitions(ctx, acct, b.ID, nil)
		if err != nil || len(parts) != 1 || parts[0].Entries != 3 || parts[0].Tokens != 7 || parts[0].Oldest.IsZero() {
			t.Fatalf("partitions: %+v %v", parts, err)
		}
		// Assistant turns are the user's own.
		tn, err := r.AddMemoryAssistantTurn(ctx, AssistantTurn{AccountID: acct, UserID: "u1", UserInput: "a bank", Config: map[string]any{"name": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.AssistantTurn(ctx, acct, "u2", tn.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("another user reads the turn")
		}
		if err := r.DeclineMemoryAssistantTurn(ctx, other, "u1", tn.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("another account decides the turn")
		}
		if err := r.ClaimMemoryAssistantTurn(ctx, other, "u1", tn.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatal("another account claims the turn")
		}
		// One claim at a time; an accepted turn cannot be claimed or declined.
		if err := r.ClaimMemoryAssistantTurn(ctx, acct, "u1", tn.ID); err != nil {
			t.Fatal(err)
		}
		if err := r.ClaimMemoryAssistantTurn(ctx, acct, "u1", tn.ID); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second claim: %v", err)
		}
		if err := r.ReleaseMemoryAssistantTurn(ctx, acct, "u1", tn.ID); err != nil {
			t.Fatal(err)
		}
		if err := r.ClaimMemoryAssistantTurn(ctx, acct, "u1", tn.ID); err != nil {
			t.Fatalf("a claim after release: %v", err)
		}
		if err := r.AcceptMemoryAssistantTurn(ctx, acct, "u1", tn.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		if err := r.ClaimMemoryAssistantTurn(ctx, acct, "u1", tn.ID); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a claim of an accepted turn: %v", err)
		}
		if err := r.DeclineMemoryAssistantTurn(ctx, acct, "u1", tn.ID); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a decline of an accepted turn: %v", err)
		}
		if err := r.DeleteMemoryBank(ctx, acct, b.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := r.LatestMemoryEntries(ctx, acct, b.ID, "k", 10); len(got) != 0 {
			t.Fatal("entries outlive their bank")
		}
	})
}
