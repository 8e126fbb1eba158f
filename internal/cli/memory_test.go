package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestMemoryCommands drives every `agentry memory` command (and so every
// memory method of the client) against a real server.
func TestMemoryCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key, "-o", "json"}
		plain := []string{"--base-url", ts.URL, "--api-key", ts.Key}

		var b client.MemoryBank
		run(t, append(g, "memory", "create", "Support chats", "--type", "conversation", "--max-turns", "4", "--retention-days", "90")...).ok(t, &b)
		if b.ID == "" || b.Type != "conversation" || b.MaxTurns == nil || *b.MaxTurns != 4 || b.SourceConnectionID == nil {
			t.Fatalf("create: %+v", b)
		}
		var got client.MemoryBank
		run(t, append(g, "memory", "update", b.ID, "--name", "Customer chats", "--max-turns", "6")...).ok(t, &got)
		if got.Name != "Customer chats" || *got.MaxTurns != 6 {
			t.Fatalf("update: %+v", got)
		}
		run(t, append(g, "memory", "get", b.ID)...).ok(t, &got)
		var list []client.MemoryBank
		run(t, append(g, "memory", "list", "--type", "conversation")...).ok(t, &list)
		if len(list) != 1 || list[0].ID != b.ID {
			t.Fatalf("list: %+v", list)
		}
		run(t, append(g, "memory", "list", "--type", "general")...).ok(t, &list)
		if len(list) != 0 {
			t.Fatalf("list general: %+v", list)
		}
		for _, text := range []string{"Ada's order is 4417.", "It ships to Berlin.", "She prefers email.", "Refund approved.", "Tier is Gold.", "Thanks.", "Bye."} {
			if _, err := memory.TestRows(ts.DB).AddMemoryEntry(context.Background(), memory.Entry{AccountID: ts.AccountID, BankID: b.ID, Partition: "ada", Content: text, Tokens: 5}); err != nil {
				t.Fatal(err)
			}
		}
		var st map[string]any
		run(t, append(g, "memory", "stats", b.ID, "--days", "7")...).ok(t, &st)
		if st["total_entries"] != float64(7) {
			t.Fatalf("stats: %v", st)
		}
		var dry client.CompactionTest
		run(t, append(g, "memory", "test-compaction", b.ID)...).ok(t, &dry)
		if dry.CompactionSummary == nil || len(dry.OriginalEntries) != 7 || dry.Evaluation.Verdict == "" {
			t.Fatalf("dry run: %+v", dry)
		}
		run(t, append(g, "memory", "test-compaction", "--compaction-prompt", "Summarize.", "--sample", "Bob lives in Oslo.", "--sample", "Bob likes tea.")...).ok(t, &dry)
		if dry.CompactionSummary == nil || !strings.Contains(*dry.CompactionSummary, "Bob") {
			t.Fatalf("standalone dry run: %+v", dry)
		}
		var sched client.CompactionScheduled
		run(t, append(g, "memory", "compact", b.ID)...).ok(t, &sched)
		if sched.Status != "scheduled" {
			t.Fatalf("compact: %+v", sched)
		}
		var agents []client.MemoryBankAgent
		run(t, append(g, "memory", "agents", b.ID)...).ok(t, &agents)
		if len(agents) != 0 {
			t.Fatalf("agents: %+v", agents)
		}
		var templates []map[string]any
		run(t, append(g, "memory", "templates")...).ok(t, &templates)
		if len(templates) == 0 {
			t.Fatal("no templates")
		}

		var prop client.MemoryAssistantResponse
		run(t, append(g, "memory", "assistant", "ask", "Store facts about each user's preferences for 6 months, accurately")...).ok(t, &prop)
		if prop.Config["type"] != "general" || prop.Config["mode"] != "slow_and_thorough" || prop.Config["retention_days"] != float64(180) {
			t.Fatalf("proposal: %+v", prop)
		}
		var hist client.MemoryAssistantConversation
		run(t, append(g, "memory", "assistant", "history")...).ok(t, &hist)
		if hist.Total != 1 || hist.Turns[0].ConversationID != prop.ConversationID {
			t.Fatalf("history: %+v", hist)
		}
		run(t, append(plain, "memory", "assistant", "accept", prop.ConversationID)...).memText(t, "accepted")
		run(t, append(g, "memory", "list", "--type", "general")...).ok(t, &list)
		if len(list) != 1 || list[0].Mode != "slow_and_thorough" {
			t.Fatalf("accepting did not create the bank: %+v", list)
		}
		run(t, append(plain, "memory", "reset", b.ID)...).memText(t, "reset")
		run(t, append(g, "memory", "stats", b.ID)...).ok(t, &st)
		if st["total_entries"] != float64(0) {
			t.Fatalf("after reset: %v", st)
		}
		run(t, append(plain, "memory", "delete", b.ID)...).memText(t, "deleted")
	})
}

// memText fails unless the run succeeded and printed want.
func (r result) memText(t *testing.T, want string) {
	t.Helper()
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("exit %d, stdout %q (want %q), stderr %s", r.code, r.stdout, want, r.stderr)
	}
}
