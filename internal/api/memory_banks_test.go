package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// supportAgent is the worked example of docs/memory.md, read from the
// page: a support chat agent that answers from the customer's earlier
// turns and records each exchange under the customer's id.
func supportAgent(bankID string) map[string]any {
	var def map[string]any
	b, err := os.ReadFile("../../docs/memory.md")
	if err != nil {
		panic(err)
	}
	m := regexp.MustCompile("(?s)<!-- support-agent -->\n```json\n(.*?)```").FindSubmatch(b)
	if m == nil {
		panic("docs/memory.md lost its support-agent example")
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(m[1]), "MEMORY_BANK_ID", bankID)), &def); err != nil {
		panic(err)
	}
	return def
}

// memAgent creates an agent and saves its workflow.
func memAgent(t *testing.T, s *testserver.Server, body map[string]any) api.AgentSummaryResponse {
	t.Helper()
	a := createAgent(t, s, s.Key, map[string]any{"name": body["name"]})
	r := s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": getDefinition(t, s, s.Key, a.ID).ChangeID,
		"definition": body["definition"]})
	wantStatus(t, r, http.StatusOK)
	return a
}

func createBank(t *testing.T, s *testserver.Server, key string, body map[string]any) string {
	t.Helper()
	r := s.Do(t, "POST", "/memory_banks", key, body)
	wantStatus(t, r, http.StatusCreated)
	var b struct{ ID string }
	r.JSON(t, &b)
	return b.ID
}

func runAgent(t *testing.T, s *testserver.Server, key, agentID, input string, meta map[string]any) runs.RunResponse {
	t.Helper()
	r := s.Do(t, "POST", "/agents/"+agentID+"/runs", key, map[string]any{"input": input, "metadata": meta})
	wantStatus(t, r, http.StatusOK)
	var start runs.RunResponse
	r.JSON(t, &start)
	done := waitRun(t, s, key, start.RunID)
	if done.Status != "completed" {
		b, _ := json.Marshal(done)
		t.Fatalf("run %s: %s", done.Status, b)
	}
	return done
}

// TestSupportAgentRemembersEachCustomer is the worked example: three runs
// with one customer's conversation_key answer from the earlier turns; a
// second customer's runs never see the first's.
func TestSupportAgentRemembersEachCustomer(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		bank := createBank(t, s, s.Key, map[string]any{"name": "Support conversations", "type": "conversation"})
		a := memAgent(t, s, map[string]any{"name": "Support", "definition": supportAgent(bank)})
		ada := map[string]any{"customer_id": "cust-ada"}
		runAgent(t, s, s.Key, a.ID, "Hello, my order number is 4417 and it has not arrived.", ada)
		runAgent(t, s, s.Key, a.ID, "I also moved to Berlin last month.", ada)
		third := runAgent(t, s, s.Key, a.ID, "What is my order number?", ada)
		page, _ := os.ReadFile("../../docs/memory.md")
		printed := regexp.MustCompile(`answer quotes\s+"([^"]+)"`).FindSubmatch(page)
		if printed == nil {
			t.Fatal("docs/memory.md lost the printed answer")
		}
		if third.Output == nil || *third.Output != strings.Join(strings.Fields(string(printed[1])), " ") || !strings.Contains(*third.Output, "4417") {
			b, _ := json.Marshal(third)
			t.Fatalf("the third run does not answer from the first: %s", b)
		}
		// Six turns are stored for Ada, in order.
		b, err := memory.TestRows(s.DB).MemoryBank(context.Background(), s.AccountID, bank)
		if err != nil {
			t.Fatal(err)
		}
		turns, err := memory.TestRows(s.DB).LatestMemoryEntries(context.Background(), s.AccountID, bank, "cust-ada", 100)
		if err != nil || len(turns) != 6 || *turns[0].Speaker != "user" || *turns[1].Speaker != "assistant" {
			t.Fatalf("turns %d %v", len(turns), err)
		}
		if !strings.Contains(turns[0].Content, "4417") || b.SourceID == nil {
			t.Fatalf("first turn %q", turns[0].Content)
		}
		// Another customer asks the same question: nothing of Ada's leaks.
		bob := runAgent(t, s, s.Key, a.ID, "What is my order number?", map[string]any{"customer_id": "cust-bob"})
		if bob.Output != nil && strings.Contains(*bob.Output, "4417") {
			t.Fatalf("Bob's run sees Ada's order: %s", *bob.Output)
		}
		// The bank cannot be deleted while the agent uses it.
		r := s.Do(t, "DELETE", "/memory_banks/"+bank, s.Key, nil)
		wantStatus(t, r, http.StatusConflict)
		if !strings.Contains(string(r.Body), "Support") {
			t.Fatalf("the refusal does not name the agent: %s", r.Body)
		}
		r = s.Do(t, "GET", "/memory_banks/"+bank+"/agents", s.Key, nil)
		if !strings.Contains(string(r.Body), a.ID) {
			t.Fatalf("agents using the bank: %s", r.Body)
		}
	})
}

// TestConcurrentWritesToOnePartitionLoseNothing runs many agent runs at
// once against one conversation_key: every turn is stored.
func TestConcurrentWritesToOnePartitionLoseNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		bank := createBank(t, s, s.Key, map[string]any{"name": "Shared", "type": "conversation"})
		def := map[string]any{"child_steps": []any{map[string]any{"id": "t", "name": "T", "step_type": "add_chat_turn",
			"memory_bank_id": bank, "conversation_key": "shared", "content": "{{agent.input}}"}}}
		a := memAgent(t, s, map[string]any{"name": "Writer", "definition": def})
		const n = 16
		var wg sync.WaitGroup
		ids := make(chan string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.Do(t, "POST", "/agents/"+a.ID+"/runs", s.Key, map[string]any{"input": fmt.Sprintf("turn %d", i)})
				var start runs.RunResponse
				r.JSON(t, &start)
				ids <- start.RunID
			}()
		}
		wg.Wait()
		close(ids)
		for id := range ids {
			if done := waitRun(t, s, s.Key, id); done.Status != "completed" {
				t.Fatalf("run %s %s", id, done.Status)
			}
		}
		// And writes straight through the store, in parallel, too.
		var wg2 sync.WaitGroup
		for i := range n {
			wg2.Add(1)
			go func() {
				defer wg2.Done()
				if _, err := memory.TestRows(s.DB).AddMemoryEntry(context.Background(), memory.Entry{AccountID: s.AccountID, BankID: bank, Partition: "shared",
					Content: fmt.Sprintf("direct %d", i), Tokens: 2}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg2.Wait()
		list, err := memory.TestRows(s.DB).LatestMemoryEntries(context.Background(), s.AccountID, bank, "shared", 1000)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range list {
			seen[e.Content] = true
		}
		for i := range n {
			if !seen[fmt.Sprintf("turn %d", i)] || !seen[fmt.Sprintf("direct %d", i)] {
				t.Fatalf("lost a write (turn/direct %d): %d stored of %d: %v", i, len(list), 2*n, seen)
			}
		}
	})
}

// TestGeneralBankSearchAndLoad writes facts with add_memory and finds
// them with search_memory (hybrid index, threshold, metadata filter,
// group_key), and load_memory lists them.
func TestGeneralBankSearchAndLoad(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		bank := createBank(t, s, s.Key, map[string]any{"name": "Facts", "type": "general"})
		write := map[string]any{"child_steps": []any{map[string]any{"id": "w", "name": "W", "step_type": "add_memory",
			"memory_bank_id": bank, "group_key": "{{metadata.user}}", "content": "{{agent.input}}",
			"metadata": map[string]any{"topic": "{{metadata.topic}}"}}}}
		w := memAgent(t, s, map[string]any{"name": "Writer", "definition": write})
		runAgent(t, s, s.Key, w.ID, "Ada prefers tea over coffee.", map[string]any{"user": "ada", "topic": "drinks"})
		runAgent(t, s, s.Key, w.ID, "Ada's invoices go to billing@example.com.", map[string]any{"user": "ada", "topic": "billing"})
		runAgent(t, s, s.Key, w.ID, "Bob prefers coffee, always black.", map[string]any{"user": "bob", "topic": "drinks"})
		// Wait until the three entries are indexed.
		deadline := time.Now().Add(30 * time.Second)
		for {
			list, err := memory.TestRows(s.DB).MemoryEntries(context.Background(), s.AccountID, bank, memory.EntryFilter{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			indexed := 0
			for _, e := range list {
				if e.ContentID != nil {
					c, err := knowledge.TestRows(s.DB).Content(context.Background(), s.AccountID, *e.ContentID)
					if err == nil && c.Status == knowledge.ContentIndexed {
						indexed++
					}
				}
			}
			if indexed == 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of 3 entries indexed", indexed)
			}
			time.Sleep(50 * time.Millisecond)
		}
		search := func(extra map[string]any) string {
			step := map[string]any{"id": "s", "name": "S", "step_type": "search_memory", "memory_bank_id": bank, "query": "{{agent.input}}", "top_k": 5,
				"child_steps": []any{map[string]any{"id": "o", "name": "O", "step_type": "display_result"}}}
			for k, v := range extra {
				step[k] = v
			}
			a := memAgent(t, s, map[string]any{"name": "Search", "definition": map[string]any{"child_steps": []any{step}}})
			out := runAgent(t, s, s.Key, a.ID, "What does Ada like to drink, tea or coffee?", nil)
			if out.Output == nil {
				t.Fatal("no output")
			}
			return *out.Output
		}
		all := search(nil)
		if !strings.Contains(all, "tea over coffee") {
			t.Fatalf("search misses Ada's preference: %s", all)
		}
		if strings.Contains(all, "[memory entry") {
			t.Fatalf("search output shows the index suffix: %s", all)
		}
		onlyBob := search(map[string]any{"group_key": "bob"})
		if strings.Contains(onlyBob, "Ada") || !strings.Contains(onlyBob, "Bob") {
			t.Fatalf("group_key search: %s", onlyBob)
		}
		billing := search(map[string]any{"metadata_filter": map[string]any{"topic": "billing"}})
		if !strings.Contains(billing, "invoices") || strings.Contains(billing, "tea") {
			t.Fatalf("metadata filter: %s", billing)
		}
		none := search(map[string]any{"score_threshold": 0.999})
		if none != "No memories found." {
			t.Fatalf("threshold: %s", none)
		}
		load := memAgent(t, s, map[string]any{"name": "Load", "definition": map[string]any{"child_steps": []any{map[string]any{
			"id": "l", "name": "L", "step_type": "load_memory", "memory_bank_id": bank, "group_key": "ada", "order": "oldest",
			"child_steps": []any{map[string]any{"id": "o", "name": "O", "step_type": "display_result"}}}}}})
		out := runAgent(t, s, s.Key, load.ID, "x", nil)
		if out.Output == nil || *out.Output != "Ada prefers tea over coffee.\n\nAda's invoices go to billing@example.com." {
			t.Fatalf("load_memory: %v", out.Output)
		}
		// A conversation step on a general bank fails the run clearly.
		bad := memAgent(t, s, map[string]any{"name": "Bad", "definition": map[string]any{"child_steps": []any{map[string]any{
			"id": "h", "name": "H", "step_type": "load_chat_history", "memory_bank_id": bank}}}})
		r := s.Do(t, "POST", "/agents/"+bad.ID+"/runs", s.Key, map[string]any{"input": "x"})
		var start runs.RunResponse
		r.JSON(t, &start)
		if done := waitRun(t, s, s.Key, start.RunID); done.Status != "failed" {
			t.Fatalf("a conversation step on a general bank: %s", done.Status)
		}
	})
}

// waitStartupSweep waits for the memory sweep the server runs when it
// starts (River's leader enqueues it once elected, which can take a few
// seconds on a busy machine). Run after the test has filled a bank over
// its max_turns, it would compact the bank, which is its job, while the
// test checks that dry runs leave the bank alone.
func waitStartupSweep(t *testing.T, s *testserver.Server) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := s.DB.R.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'memory_sweep' AND state = 'completed'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the startup memory sweep did not run")
		}
	}
}

// TestCompactionDryRunsWriteNothing: test-compaction on a bank's entries,
// on samples and on generated entries, with the offline model; the bank
// is unchanged afterwards.
func TestCompactionDryRunsWriteNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		waitStartupSweep(t, s)
		bank := createBank(t, s, s.Key, map[string]any{"name": "Chats", "type": "conversation", "max_turns": 2})
		for _, text := range []string{"Ada's order is 4417.", "It ships to Berlin on Friday.", "She prefers email."} {
			if _, err := memory.TestRows(s.DB).AddMemoryEntry(context.Background(), memory.Entry{AccountID: s.AccountID, BankID: bank, Partition: "ada", Content: text, Tokens: 6}); err != nil {
				t.Fatal(err)
			}
		}
		var out api.CompactionTestResponse
		r := s.Do(t, "POST", "/memory_banks/"+bank+"/test-compaction", s.Key, map[string]any{"compaction_prompt": "Summarize the facts in two sentences."})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &out)
		if len(out.OriginalEntries) != 3 || len(out.SurvivingEntries) != 1 || out.CompactionSummary == nil || out.Generated ||
			out.Evaluation.Score < 1 || out.Evaluation.Score > 5 {
			t.Fatalf("bank dry run: %+v", out)
		}
		r = s.Do(t, "POST", "/memory_banks/"+bank+"/test-compaction", s.Key, map[string]any{"generate_direction": "A customer asks about a late parcel to Oslo", "entry_count": 4})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &out)
		if !out.Generated || len(out.OriginalEntries) == 0 || len(out.OriginalEntries) > 4 || out.CompactionSummary == nil {
			t.Fatalf("generated dry run: %+v", out)
		}
		r = s.Do(t, "POST", "/memory_banks/test-compaction", s.Key, map[string]any{"compaction_prompt": "Summarize.", "bank_type": "general",
			"sample_entries": []string{"Bob lives in Oslo.", "Bob's invoice 88 is overdue.", "Bob likes tea."}})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &out)
		if out.Evaluation.Verdict != "pass" && out.Evaluation.Verdict != "fail" {
			t.Fatalf("standalone: %+v", out)
		}
		// Nothing was written: three live entries, no summary.
		list, _ := memory.TestRows(s.DB).LatestMemoryEntries(context.Background(), s.AccountID, bank, "ada", 10)
		if len(list) != 3 {
			t.Fatalf("a dry run changed the bank: %d entries", len(list))
		}
		// An empty bank with nothing to compact is a clear 422.
		empty := createBank(t, s, s.Key, map[string]any{"name": "Empty"})
		wantStatus(t, s.Do(t, "POST", "/memory_banks/"+empty+"/test-compaction", s.Key, map[string]any{}), http.StatusUnprocessableEntity)
		// A dry run the account cannot pay for is a 402.
		bal, _ := billing.NewCredits(s.DB).Balance(context.Background(), s.AccountID)
		if _, err := billing.NewCredits(s.DB).Charge(context.Background(), s.AccountID, bal, "test", ""); err != nil {
			t.Fatal(err)
		}
		r = s.Do(t, "POST", "/memory_banks/test-compaction", s.Key, map[string]any{"compaction_prompt": "Summarize.", "sample_entries": []string{"Bob lives in Oslo."}})
		if r.Status != http.StatusPaymentRequired || !strings.Contains(string(r.Body), "insufficient_credits") {
			t.Fatalf("no credits: %d %s", r.Status, r.Body)
		}
	})
}

// TestMemoryAssistantAcceptCreatesThenUpdates: accepting a proposal
// creates the bank; refining it (current_config with its id) and
// accepting updates it; a turn of another user is not found.
func TestMemoryAssistantAcceptCreatesThenUpdates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		var p api.MemoryBankAiAssistantResponse
		r := s.Do(t, "POST", "/ai-assistant/memory-bank", s.Key, map[string]any{"user_input": "A support chat that remembers customers for 60 days"})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &p)
		if p.Config == nil || p.Config.Type != "conversation" || *p.Config.RetentionDays != 60 || !p.Success {
			t.Fatalf("proposal: %+v", p)
		}
		wantStatus(t, s.Do(t, "PATCH", "/ai-assistant/memory-bank/"+p.ConversationID, s.Key, map[string]any{"accepted": true}), http.StatusOK)
		banks, _, err := memory.TestRows(s.DB).MemoryBanks(context.Background(), s.AccountID, "", "created_at", true, 0, 10)
		if err != nil || len(banks) != 1 || *banks[0].RetentionDays != 60 {
			t.Fatalf("accepted: %+v %v", banks, err)
		}
		// Accepting twice does not create a second bank.
		wantStatus(t, s.Do(t, "PATCH", "/ai-assistant/memory-bank/"+p.ConversationID, s.Key, map[string]any{"accepted": true}), http.StatusOK)
		cur := map[string]any{"id": banks[0].ID, "name": banks[0].Name, "type": "conversation", "mode": banks[0].Mode, "retention_days": 60}
		r = s.Do(t, "POST", "/memory_banks/ai-assistant", s.Key, map[string]any{"user_input": "keep it 1 year", "current_config": cur})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &p)
		wantStatus(t, s.Do(t, "PATCH", "/memory_banks/ai-assistant/"+p.ConversationID, s.Key, map[string]any{"accepted": true}), http.StatusOK)
		banks, _, _ = memory.TestRows(s.DB).MemoryBanks(context.Background(), s.AccountID, "", "created_at", true, 0, 10)
		if len(banks) != 1 || *banks[0].RetentionDays != 365 {
			t.Fatalf("refined accept: %+v", banks)
		}
		var conv api.MemoryBankLastConversationResponse
		r = s.Do(t, "GET", "/memory_banks/ai-assistant/last-conversation?limit=1", s.Key, nil)
		r.JSON(t, &conv)
		if conv.Total != 2 || len(conv.Turns) != 1 || conv.Turns[0].ConversationID != p.ConversationID || conv.Accepted == nil || !*conv.Accepted {
			t.Fatalf("conversation: %+v", conv)
		}
		other := s.NewTenant(t, "other")
		wantStatus(t, s.Do(t, "PATCH", "/memory_banks/ai-assistant/"+p.ConversationID, other.Key, map[string]any{"accepted": false}), http.StatusNotFound)
		// Declining an accepted proposal does not rewrite what happened.
		r = s.Do(t, "PATCH", "/memory_banks/ai-assistant/"+p.ConversationID, s.Key, map[string]any{"accepted": false})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if !strings.Contains(string(r.Body), "accepted already") {
			t.Errorf("decline after accept: %s", r.Body)
		}
		r = s.Do(t, "GET", "/memory_banks/ai-assistant/last-conversation?limit=1", s.Key, nil)
		r.JSON(t, &conv)
		if conv.Accepted == nil || !*conv.Accepted {
			t.Fatalf("the accept was overwritten: %+v", conv)
		}

		// Accepts of one proposal at once create one bank: each answers
		// with it (200) or says another is applying it (409).
		r = s.Do(t, "POST", "/memory_banks/ai-assistant", s.Key, map[string]any{"user_input": "A general knowledge bank for product facts"})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &p)
		var wg sync.WaitGroup
		codes := make([]int, 8)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = s.Do(t, "PATCH", "/memory_banks/ai-assistant/"+p.ConversationID, s.Key, map[string]any{"accepted": true}).Status
			}()
		}
		wg.Wait()
		for _, c := range codes {
			if c != http.StatusOK && c != http.StatusConflict {
				t.Fatalf("concurrent accepts answered %v", codes)
			}
		}
		banks, _, _ = memory.TestRows(s.DB).MemoryBanks(context.Background(), s.AccountID, "", "created_at", true, 0, 10)
		if len(banks) != 2 {
			t.Fatalf("%d banks after concurrent accepts of one proposal, want 2 (one from each proposal)", len(banks))
		}
	})
}
