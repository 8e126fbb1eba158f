package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestMemoryBankForms: a bank created from one of the API's templates,
// the API's refusals shown next to the form with the input kept, a bank
// without a threshold offering the setting and then compactable, its
// settings changed and cleared, a bank in use refused deletion (409 on
// the page) and a free one deleted, and another account's bank as a 404.
func TestMemoryBankForms(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		b.get("/console/memory").mustContain(t, `href="/console/memory/new"`)
		p := b.get("/console/memory/new")
		p.mustContain(t, "New memory bank", "Support conversation", "/console/memory/new?template=0", "Create the bank")
		// A template fills the form with its settings.
		p = b.get("/console/memory/new?template=1")
		p.mustContain(t, "(chosen)", `value="User facts"`, `<option value="general" selected>`, `<option value="balanced" selected>`, `value="50000"`, `value="365"`)

		// Refusals keep the input: embedding settings outside mode custom,
		// a number that is not one.
		form := url.Values{"name": {"Notes"}, "type": {"general"}, "mode": {"balanced"}, "dimensions": {"64"}, "retention_days": {"60"}}
		p = b.post("/console/memory/new", form)
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, "are for mode custom", `value="Notes"`, `value="64"`, `<option value="balanced" selected>`)
		form.Set("dimensions", "")
		form.Set("max_turns", "many")
		p = b.post("/console/memory/new", form)
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "Max entries per key must be a whole number.", `value="many"`)
		if banks, err := api.ListMemoryBanks(ctx, client.MemoryBankListOptions{Limit: 10}); err != nil || banks.Total != 0 {
			t.Fatalf("a refused bank was created: %+v %v", banks, err)
		}

		// Created without a threshold: the bank's page offers the setting.
		form.Set("max_turns", "")
		p = b.post("/console/memory/new", form)
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Bank created.", "Notes", "cannot be compacted", "/settings#thresholds")
		id := regexpFind(t, p.Body, `/console/memory/([0-9a-f-]{36})/settings`)
		bank, err := api.GetMemoryBank(ctx, id)
		if err != nil || bank.Type != "general" || bank.Mode != "balanced" || bank.RetentionDays == nil || *bank.RetentionDays != 60 || bank.MaxTurns != nil {
			t.Fatalf("created: %+v %v", bank, err)
		}

		// Settings: a refused value keeps the input; then a threshold is set.
		set := "/console/memory/" + id + "/settings"
		b.get(set).mustContain(t, "Settings: Notes", "fixed at creation", `value="60"`, "Delete the bank")
		p = b.post(set, url.Values{"name": {"Notes"}, "retention_days": {"-5"}, "max_turns": {"100"}, "compaction_prompt": {"Keep the numbers."}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, "retention_days", `value="-5"`, "Keep the numbers.")
		p = b.post(set, url.Values{"name": {"Research notes"}, "description": {"findings"}, "retention_days": {"90"}, "max_turns": {"100"},
			"compaction_prompt": {"Keep the numbers."}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Settings saved.", `value="Research notes"`, `value="100"`)
		if bank, err = api.GetMemoryBank(ctx, id); err != nil || bank.Name != "Research notes" || bank.MaxTurns == nil || *bank.MaxTurns != 100 ||
			strOf(bank.CompactionPrompt) != "Keep the numbers." || *bank.RetentionDays != 90 {
			t.Fatalf("saved: %+v %v", bank, err)
		}
		if p = b.get("/console/memory/" + id); strings.Contains(p.Body, "cannot be compacted") {
			t.Fatal("a bank with a threshold still says it cannot be compacted")
		}
		// Emptied fields are cleared.
		b.post(set, url.Values{"name": {"Research notes"}, "retention_days": {"90"}}).mustContain(t, "Settings saved.")
		if bank, _ = api.GetMemoryBank(ctx, id); (bank.MaxTurns != nil && *bank.MaxTurns != 0) || strOf(bank.CompactionPrompt) != "" || strOf(bank.Description) != "" {
			t.Fatalf("cleared: %+v", bank)
		}

		// Another account: 404s, nothing changes.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		ob.get("/console/memory")
		wantStatus(t, ob.get(set), http.StatusNotFound)
		wantStatus(t, ob.post(set, url.Values{"name": {"Theirs"}}), http.StatusNotFound)
		wantStatus(t, ob.post("/console/memory/"+id+"/delete", nil), http.StatusNotFound)
		if bank, err = api.GetMemoryBank(ctx, id); err != nil || bank.Name != "Research notes" {
			t.Fatalf("another account changed it: %+v %v", bank, err)
		}

		// In use by an agent: deletion is refused on the page (409).
		agent := srv.StoreAgent(t, srv.AccountID, "Recorder",
			`{"child_steps":[{"id":"remember","step_type":"add_memory","memory_bank_id":"`+id+`","content":"{{input}}"}]}`, "dynamic_input")
		b.get(set)
		p = b.post("/console/memory/"+id+"/delete", nil)
		wantStatus(t, p, http.StatusConflict)
		p.mustContain(t, `class="problems"`, "Recorder", "/console/agents/"+agent)
		if _, err := api.GetMemoryBank(ctx, id); err != nil {
			t.Fatalf("the bank in use was deleted: %v", err)
		}
		if err := api.DeleteAgent(ctx, agent); err != nil {
			t.Fatal(err)
		}
		p = b.post("/console/memory/"+id+"/delete", nil)
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Bank deleted.")
		if _, err := api.GetMemoryBank(ctx, id); err == nil {
			t.Fatal("the bank was not deleted")
		}
	})
}
