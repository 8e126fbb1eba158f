package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// seedEntry writes an entry at a given time straight into the store (as
// add_chat_turn writes one, but dated), and returns its id.
func seedEntry(t *testing.T, s *testserver.Server, accountID, bankID, key, content string, at time.Time, summary bool) string {
	t.Helper()
	id := store.NewID()
	_, err := s.DB.W.ExecContext(context.Background(), `INSERT INTO memory_entries (id, account_id, bank_id, partition_key, speaker, content,
		metadata, tags, tokens, summary, content_id, run_id, created_at) VALUES ($1,$2,$3,$4,'user',$5,'{"channel":"chat"}','["vip"]',7,$6,NULL,NULL,$7)`,
		id, accountID, bankID, key, content, summary, at.UTC().Truncate(time.Microsecond))
	if err != nil {
		t.Fatal(err)
	}
	// Written with SQL of its own: the bank's stat totals counted afresh.
	if err := memory.TestRows(s.DB).RebuildMemoryStats(context.Background(), bankID); err != nil {
		t.Fatal(err)
	}
	return id
}

func listEntries(t *testing.T, s *testserver.Server, key, bankID, query string) api.MemoryEntriesResponse {
	t.Helper()
	r := s.Do(t, "GET", "/memory_banks/"+bankID+"/entries"+query, key, nil)
	wantStatus(t, r, http.StatusOK)
	var out api.MemoryEntriesResponse
	r.JSON(t, &out)
	return out
}

// TestMemoryBankEntriesAndKeys: a bank's entries newest first, walked by
// cursor without losing or repeating one, filtered by key (the empty key
// too) and by text; its keys in byte order with their counts and last
// activity, by prefix and cursor; bad input as 422s and another account's
// bank as a 404.
func TestMemoryBankEntriesAndKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		bank := createBank(t, s, s.Key, map[string]any{"name": "Support", "type": "conversation"})
		base := time.Now().Add(-2 * time.Hour)
		var want []string // ids, newest first
		keys := []string{"cust-ada", "cust-bob", "team-x", ""}
		for i := range 23 {
			content := fmt.Sprintf("Turn %d about order %d", i, 100+i)
			if i == 7 {
				content = "Refund of 50% APPROVED for Ada"
			}
			want = append([]string{seedEntry(t, s, s.AccountID, bank, keys[i%4], content, base.Add(time.Duration(i)*time.Minute), i == 0)}, want...)
		}
		// Two entries at the same instant: the id orders them.
		same := base.Add(time.Hour)
		a, b := seedEntry(t, s, s.AccountID, bank, "cust-ada", "twin one", same, false), seedEntry(t, s, s.AccountID, bank, "cust-ada", "twin two", same, false)
		if a < b {
			a, b = b, a
		}
		want = append([]string{a, b}, want...)

		// Pages of 4 by cursor: every entry once, newest first.
		var got []string
		cursor := ""
		for range 20 {
			q := "?limit=4"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			p := listEntries(t, s, s.Key, bank, q)
			for _, e := range p.Data {
				got = append(got, e.ID)
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("walked %v\nwant %v", got, want)
		}

		first := listEntries(t, s, s.Key, bank, "?limit=100")
		if len(first.Data) != 25 || first.NextCursor != nil {
			t.Fatalf("one page of 100: %d entries, next %v", len(first.Data), first.NextCursor)
		}
		last := first.Data[24]
		if !last.Summary || last.Key != "cust-ada" || last.Metadata["channel"] != "chat" || len(last.Tags) != 1 || last.Tokens != 7 || *last.Speaker != "user" {
			t.Fatalf("the oldest entry reads %+v", last)
		}

		// By key: only its entries, newest first; key= is the entries without one.
		ada := listEntries(t, s, s.Key, bank, "?key=cust-ada")
		if len(ada.Data) != 8 || ada.Data[0].Content != "twin one" && ada.Data[0].Content != "twin two" {
			t.Fatalf("cust-ada: %d entries, first %q", len(ada.Data), ada.Data[0].Content)
		}
		for _, e := range ada.Data {
			if e.Key != "cust-ada" {
				t.Fatalf("key filter let %q through", e.Key)
			}
		}
		if none := listEntries(t, s, s.Key, bank, "?key="); len(none.Data) != 5 || none.Data[0].Key != "" {
			t.Fatalf("the entries without a key: %d", len(none.Data))
		}
		if nobody := listEntries(t, s, s.Key, bank, "?key=nobody"); len(nobody.Data) != 0 || nobody.NextCursor != nil {
			t.Fatalf("an unknown key has entries: %+v", nobody)
		}

		// By text: case-insensitive, and % is a literal.
		if hits := listEntries(t, s, s.Key, bank, "?q="+url.QueryEscape("50% approved")); len(hits.Data) != 1 || hits.Data[0].ID != want[len(want)-8] {
			t.Fatalf("search for 50%% approved: %+v", hits.Data)
		}
		if hits := listEntries(t, s, s.Key, bank, "?q=%25"); len(hits.Data) != 1 {
			t.Fatalf("search for a bare %%: %d hits", len(hits.Data))
		}
		if hits := listEntries(t, s, s.Key, bank, "?q=order+1&key=cust-bob&limit=2"); len(hits.Data) != 2 || hits.NextCursor == nil {
			t.Fatalf("search within a key: %+v", hits)
		} else if more := listEntries(t, s, s.Key, bank, "?q=order+1&key=cust-bob&limit=2&cursor="+*hits.NextCursor); len(more.Data) == 0 {
			t.Fatal("the search's second page is empty")
		}

		// Keys in byte order with counts and last activity.
		r := s.Do(t, "GET", "/memory_banks/"+bank+"/keys", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var ks api.MemoryKeysResponse
		r.JSON(t, &ks)
		var names []string
		for _, k := range ks.Data {
			names = append(names, fmt.Sprintf("%s=%d", k.Key, k.Entries))
		}
		if strings.Join(names, ",") != "=5,cust-ada=8,cust-bob=6,team-x=6" || ks.NextCursor != nil {
			t.Fatalf("keys: %v next %v", names, ks.NextCursor)
		}
		if at, err := time.Parse(time.RFC3339Nano, ks.Data[1].LastActivity); err != nil || !at.Equal(same.UTC().Truncate(time.Microsecond)) {
			t.Fatalf("cust-ada's last activity %q, want %v", ks.Data[1].LastActivity, same)
		}
		var walked []string
		cursor = ""
		for range 10 {
			q := "?limit=1&prefix=cust-"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			r := s.Do(t, "GET", "/memory_banks/"+bank+"/keys"+q, s.Key, nil)
			wantStatus(t, r, http.StatusOK)
			var p api.MemoryKeysResponse
			r.JSON(t, &p)
			for _, k := range p.Data {
				walked = append(walked, k.Key)
			}
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
		}
		if strings.Join(walked, ",") != "cust-ada,cust-bob" {
			t.Fatalf("keys with prefix cust- by cursor: %v", walked)
		}
		// The empty key has a cursor too.
		r = s.Do(t, "GET", "/memory_banks/"+bank+"/keys?limit=1", s.Key, nil)
		r.JSON(t, &ks)
		r = s.Do(t, "GET", "/memory_banks/"+bank+"/keys?limit=1&cursor="+*ks.NextCursor, s.Key, nil)
		r.JSON(t, &ks)
		if len(ks.Data) != 1 || ks.Data[0].Key != "cust-ada" {
			t.Fatalf("the page after the empty key: %+v", ks.Data)
		}

		// Bad input is a 422; another account's bank and an unknown one are 404s.
		for _, q := range []string{"entries?limit=0", "entries?limit=101", "entries?cursor=nope", "entries?cursor=" + store.NewID(),
			"entries?q=" + strings.Repeat("x", 201), "entries?key=" + strings.Repeat("k", 513), "keys?cursor=nope", "keys?limit=101",
			"keys?prefix=" + strings.Repeat("p", 513)} {
			if r := s.Do(t, "GET", "/memory_banks/"+bank+"/"+q, s.Key, nil); r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%.40s: %d %s", q, r.Status, r.Body)
			}
		}
		other := s.NewTenant(t, "Other")
		for _, p := range []string{"entries", "keys", "entries?key=cust-ada", "entries?cursor=" + want[0]} {
			if r := s.Do(t, "GET", "/memory_banks/"+bank+"/"+p, other.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("another account reads %s: %d", p, r.Status)
			}
			if r := s.Do(t, "GET", "/memory_banks/"+store.NewID()+"/"+p, s.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("an unknown bank's %s: %d", p, r.Status)
			}
		}
	})
}

// TestMemoryEntriesSearchReadsAWindow: a search page reads at most
// memory.SearchWindow entries, so a rare text older than that is found on a
// later page: the first holds no match but a cursor, which leads to it.
func TestMemoryEntriesSearchReadsAWindow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		bank := createBank(t, s, s.Key, map[string]any{"name": "Big", "type": "conversation"})
		ctx := context.Background()
		tx, err := s.DB.W.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		base := time.Now().Add(-time.Hour)
		n := memory.SearchWindow + 30
		for i := range n {
			content := fmt.Sprintf("turn %d", i)
			if i == 3 {
				content = "the needle"
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_entries (id, account_id, bank_id, partition_key, speaker, content,
				metadata, tags, tokens, summary, content_id, run_id, created_at) VALUES ($1,$2,$3,'k',NULL,$4,'{}','[]',2,FALSE,NULL,NULL,$5)`,
				store.NewID(), s.AccountID, bank, content, base.Add(time.Duration(i)*time.Millisecond).UTC()); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := memory.TestRows(s.DB).RebuildMemoryStats(ctx, bank); err != nil {
			t.Fatal(err)
		}
		first := listEntries(t, s, s.Key, bank, "?q=needle")
		if len(first.Data) != 0 || first.NextCursor == nil {
			t.Fatalf("the newest %d entries hold no needle: %d found, next %v", memory.SearchWindow, len(first.Data), first.NextCursor)
		}
		second := listEntries(t, s, s.Key, bank, "?q=needle&cursor="+*first.NextCursor)
		if len(second.Data) != 1 || second.Data[0].Content != "the needle" || second.NextCursor != nil {
			t.Fatalf("the next window: %+v", second)
		}
		// Without a search the pages are full.
		if p := listEntries(t, s, s.Key, bank, "?limit=100"); len(p.Data) != 100 || p.NextCursor == nil {
			t.Fatalf("a plain page: %d entries", len(p.Data))
		}
	})
}
