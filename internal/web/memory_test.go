package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// addTurns writes n turns of a conversation key into a bank (test data,
// as add_chat_turn steps would write them).
func addTurns(t testing.TB, srv *testserver.Server, accountID, bankID, key string, n int) {
	t.Helper()
	for i := range n {
		speaker := "user"
		if i%2 == 1 {
			speaker = "assistant"
		}
		content := fmt.Sprintf("Turn %d: Ada's order number is %d and she lives in Berlin.", i, 4400+i)
		if _, err := memory.TestRows(srv.DB).AddMemoryEntry(context.Background(), memory.Entry{AccountID: accountID, BankID: bankID, Partition: key,
			Speaker: &speaker, Content: content, Tokens: 12}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMemoryPages: the banks, a bank's page with its stats and keys, the
// dry run then the real compaction, reset, the assistant's proposal
// accepted from the page, and another account's bank as a 404.
func TestMemoryPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		// Under the threshold until the dry run is checked, so no sweep
		// compacts it meanwhile; lowered before compacting for real.
		turns := 20
		bank, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: "Support conversations", Type: "conversation", MaxTurns: &turns})
		if err != nil {
			t.Fatal(err)
		}
		addTurns(t, srv, srv.AccountID, bank.ID, "cust-ada", 14)

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/memory").mustContain(t, "Memory banks", "Support conversations", "/console/memory/"+bank.ID, "conversation")
		if p := b.get("/console/memory?type=general"); strings.Contains(p.Body, "Support conversations") {
			t.Fatal("the type filter shows a conversation bank")
		}
		p := b.get("/console/memory/" + bank.ID)
		p.mustContain(t, "Support conversations", `hx-get="/console/memory/`+bank.ID+`/stats"`, "Dry run", "Delete every entry")
		b.get("/console/memory/"+bank.ID+"/stats").mustContain(t, "total entries", "cust-ada", "14 entries")
		if strings.Contains(p.Body, "Compact now") {
			t.Fatal("the real compaction is offered before a dry run")
		}

		// The dry run: a summary, nothing written, then the real thing.
		p = b.post("/console/memory/"+bank.ID+"/dry-run", nil)
		p.mustContain(t, "Dry run", "Summary of", "newer entries are kept", "Compact now")
		if st, _ := api.MemoryBankStats(ctx, bank.ID, client.MemoryBankStatsOptions{}); st["summary_entries"] != float64(0) {
			t.Fatalf("the dry run wrote: %v", st)
		}
		ten := 10
		if _, err := api.UpdateMemoryBank(ctx, bank.ID, client.UpdateMemoryBankRequest{MaxTurns: &ten}); err != nil {
			t.Fatal(err)
		}
		p = b.post("/console/memory/"+bank.ID+"/compact", nil)
		p.mustContain(t, "Compaction queued")
		deadline := time.Now().Add(20 * time.Second)
		for {
			st, err := api.MemoryBankStats(ctx, bank.ID, client.MemoryBankStatsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := st["summary_entries"].(float64); n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no summary after compacting: %v", st)
			}
			time.Sleep(50 * time.Millisecond)
		}

		// Reset deletes every entry; the bank stays.
		b.post("/console/memory/"+bank.ID+"/reset", nil).mustContain(t, "Every entry of the bank was deleted.")
		if st, _ := api.MemoryBankStats(ctx, bank.ID, client.MemoryBankStatsOptions{}); st["total_entries"] != float64(0) {
			t.Fatalf("after reset: %v", st)
		}

		// The assistant proposes; accepting creates the bank, which opens.
		p = b.post("/console/memory/assistant", url.Values{"user_input": {"Customer preferences and facts, keep 6 months"}})
		p.mustContain(t, "Create this bank", "general")
		conv := regexpFind(t, p.Body, `/console/memory/assistant/([^/"]+)/accept`)
		p = b.post("/console/memory/assistant/"+conv+"/accept", nil)
		p.mustContain(t, "Bank created.", "general")
		banks, err := api.ListMemoryBanks(ctx, client.MemoryBankListOptions{Limit: 10})
		if err != nil || banks.Total != 2 {
			t.Fatalf("banks: %+v %v", banks, err)
		}
		if p = b.post("/console/memory/assistant", url.Values{"user_input": {" "}}); p.Status != http.StatusBadRequest {
			t.Fatalf("empty description: %d", p.Status)
		}

		// A bank without thresholds: the dry run says how to set one.
		plain, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: "Notes", Type: "general"})
		if err != nil {
			t.Fatal(err)
		}
		b.get("/console/memory/" + plain.ID)
		p = b.post("/console/memory/"+plain.ID+"/compact", nil)
		p.mustContain(t, "threshold")

		// Another account: 404 for the page and every action; not listed.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		for _, path := range []string{"", "/stats"} {
			if p := ob.get("/console/memory/" + bank.ID + path); p.Status != http.StatusNotFound {
				t.Fatalf("another account's bank%s: %d", path, p.Status)
			}
		}
		for _, action := range []string{"dry-run", "compact", "reset"} {
			if p := ob.post("/console/memory/"+bank.ID+"/"+action, nil); p.Status != http.StatusNotFound {
				t.Errorf("%s as another account: %d", action, p.Status)
			}
		}
		if p := ob.get("/console/memory"); strings.Contains(p.Body, "Support conversations") {
			t.Fatal("another account lists the bank")
		}
		// A member reads the bank.
		member := newBrowser(t, srv)
		member.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		member.get("/console/memory/"+bank.ID).mustContain(t, "Support conversations")
	})
}

// TestMemoryBrowsePages: a conversation bank's keys (by prefix), a key's
// entries newest first a page at a time, the bank's entries searched, a
// general bank's entries with their metadata, links between them, and
// another account's bank as a 404 on every browse page.
func TestMemoryBrowsePages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		bank, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: "Support conversations", Type: "conversation"})
		if err != nil {
			t.Fatal(err)
		}
		addTurns(t, srv, srv.AccountID, bank.ID, "cust-ada", 60)
		addTurns(t, srv, srv.AccountID, bank.ID, "cust-bob", 3)
		addTurns(t, srv, srv.AccountID, bank.ID, "team-x", 2)
		speaker := "user"
		if _, err := memory.TestRows(srv.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: srv.AccountID, BankID: bank.ID, Partition: "cust-bob",
			Speaker: &speaker, Content: "Bob asks: is <b>express</b> shipping free?", Tokens: 9}); err != nil {
			t.Fatal(err)
		}

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		base := "/console/memory/" + bank.ID
		b.get(base).mustContain(t, `action="`+base+`/entries"`, `href="`+base+`/entries"`, `href="`+base+`/keys"`, "by conversation key")
		b.get(base+"/stats").mustContain(t, `href="`+base+`/entries?key=cust-ada"`)

		// Keys in order, each with its count, linking to its entries.
		p := b.get(base + "/keys")
		p.mustContain(t, "cust-ada", "60", "cust-bob", "4", "team-x", `href="`+base+`/entries?key=cust-bob"`)
		if i, j := strings.Index(p.Body, "cust-ada"), strings.Index(p.Body, "team-x"); i < 0 || j < i {
			t.Fatal("keys are not in key order")
		}
		p = b.get(base + "/keys?prefix=cust-")
		p.mustContain(t, "cust-ada", "cust-bob")
		if strings.Contains(p.Body, "team-x") {
			t.Fatal("the prefix filter shows team-x")
		}
		b.get(base+"/keys?prefix=zzz").mustContain(t, "No key starts with")

		// A key's entries: newest first, 50 a page, then the older ones.
		p = b.get(base + "/entries?key=cust-ada")
		p.mustContain(t, "Turn 59:", "Turn 10:", "Older »", "4459")
		if strings.Contains(p.Body, "Turn 9:") || strings.Contains(p.Body, "cust-bob") {
			t.Fatal("the first page shows more than the newest 50 of the key")
		}
		if strings.Index(p.Body, "Turn 59:") > strings.Index(p.Body, "Turn 58:") {
			t.Fatal("entries are not newest first")
		}
		next := regexpFind(t, p.Body, `href="(/console/memory/[^"]+cursor=[^"]+)" rel="next"`)
		p = b.get(strings.ReplaceAll(next, "&amp;", "&"))
		p.mustContain(t, "Turn 9:", "Turn 0:", "« Newest")
		if strings.Contains(p.Body, "Turn 10:") || strings.Contains(p.Body, `rel="next"`) {
			t.Fatal("the second page repeats an entry or offers a third")
		}

		// The bank's entries searched; the text is escaped, the keys link.
		p = b.get(base + "/entries?q=EXPRESS")
		p.mustContain(t, "Bob asks: is &lt;b&gt;express&lt;/b&gt; shipping free?", `href="`+base+`/entries?key=cust-bob"`)
		if strings.Contains(p.Body, "Turn 1:") {
			t.Fatal("the search shows entries without the text")
		}
		b.get(base+"/entries?q=order+number+is+4401&key=cust-bob").mustContain(t, "Turn 1:")
		b.get(base+"/entries?q=nothing+like+this").mustContain(t, "No entry contains")
		if p := b.get(base + "/entries?q=" + strings.Repeat("x", 201)); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a search of 201 bytes: %d", p.Status)
		}

		// A general bank: its entries with metadata and tags.
		notes, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: "Facts", Type: "general"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := memory.TestRows(srv.DB).AddMemoryEntry(ctx, memory.Entry{AccountID: srv.AccountID, BankID: notes.ID, Partition: "prefs",
			Content: "Ada prefers email.", Metadata: map[string]any{"source": "crm"}, Tags: []string{"contact"}, Tokens: 4}); err != nil {
			t.Fatal(err)
		}
		b.get("/console/memory/"+notes.ID).mustContain(t, "by group key")
		b.get("/console/memory/"+notes.ID+"/entries").mustContain(t, "Ada prefers email.", "metadata", "crm", "contact", "prefs")
		b.get("/console/memory/"+notes.ID+"/keys").mustContain(t, "group keys", "prefs")

		// Another account: every browse page of the bank is a 404.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		for _, path := range []string{"/entries", "/keys", "/entries?key=cust-ada", "/entries?q=Ada"} {
			if p := ob.get(base + path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Ada") {
				t.Errorf("another account's bank%s: %d", path, p.Status)
			}
		}
	})
}
