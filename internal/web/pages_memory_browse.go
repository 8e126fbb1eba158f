package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// Browsing a bank: its keys (a conversation bank is read key by key) and
// its entries, newest first — all of them, one key's, or those containing
// a text — a page at a time by the API's cursor (GET
// /memory_banks/{id}/keys and /entries), so a page costs the same at
// 100,000 entries as at ten.

const memoryBrowsePerPage = 50

// memoryEntryRow is an entry as the entries page shows it.
type memoryEntryRow struct {
	client.MemoryEntry
	KeyURL   string // the key's entries
	Created  string
	Meta     string // the metadata as indented JSON; "" when empty
	HasSpeak bool
}

type memoryEntriesView struct {
	Bank    *client.MemoryBank
	Entries []memoryEntryRow
	// Key is the key filter; KeySet tells "" (the entries without a key)
	// from no filter.
	Key       string
	KeySet    bool
	Query     string
	FirstPage bool
	FirstURL  string // the newest page with the same filters
	NextURL   string
}

// memoryEntriesURL is the entries page of a bank with these filters.
func memoryEntriesURL(bankID string, key *string, q, cursor string) string {
	v := url.Values{}
	if key != nil {
		v.Set("key", *key)
	}
	if q != "" {
		v.Set("q", q)
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	u := Prefix + "memory/" + url.PathEscape(bankID) + "/entries"
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}

func (c *Console) memoryEntries(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id, q := req.PathValue("id"), req.URL.Query()
	v := memoryEntriesView{Query: strings.TrimSpace(q.Get("q")), FirstPage: q.Get("cursor") == ""}
	var key *string
	if q.Has("key") {
		v.Key, v.KeySet = q.Get("key"), true
		key = &v.Key
	}
	if v.Bank, err = cl.GetMemoryBank(req.Ctx(), id); err != nil {
		return err
	}
	page, err := cl.MemoryBankEntries(req.Ctx(), id, client.MemoryEntriesOptions{Key: key, Search: v.Query, Cursor: q.Get("cursor"), Limit: memoryBrowsePerPage})
	if err != nil {
		return err
	}
	for _, e := range page.Data {
		row := memoryEntryRow{MemoryEntry: e, KeyURL: memoryEntriesURL(id, &e.Key, "", ""), Created: e.CreatedAt, HasSpeak: e.Speaker != nil && *e.Speaker != "" && !e.Summary}
		if t, err := time.Parse(time.RFC3339Nano, e.CreatedAt); err == nil {
			row.Created = t.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		if len(e.Metadata) > 0 {
			b, _ := json.MarshalIndent(e.Metadata, "", "  ")
			row.Meta = string(b)
		}
		v.Entries = append(v.Entries, row)
	}
	v.FirstURL = memoryEntriesURL(id, key, v.Query, "")
	if page.NextCursor != nil {
		v.NextURL = memoryEntriesURL(id, key, v.Query, *page.NextCursor)
	}
	return req.Page(http.StatusOK, "memory_entries.html", v.Bank.Name+" · entries", "memory", v)
}

// memoryKeyRow is a key as the keys page shows it.
type memoryKeyRow struct {
	client.MemoryKey
	EntriesURL string
	Last       string
}

type memoryKeysView struct {
	Bank      *client.MemoryBank
	Keys      []memoryKeyRow
	Prefix    string
	KeyLabel  string // conversation keys or group keys
	FirstPage bool
	FirstURL  string
	NextURL   string
}

func (c *Console) memoryKeys(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id, q := req.PathValue("id"), req.URL.Query()
	v := memoryKeysView{Prefix: strings.TrimSpace(q.Get("prefix")), FirstPage: q.Get("cursor") == "", KeyLabel: "conversation keys"}
	if v.Bank, err = cl.GetMemoryBank(req.Ctx(), id); err != nil {
		return err
	}
	if v.Bank.Type == "general" {
		v.KeyLabel = "group keys"
	}
	page, err := cl.MemoryBankKeys(req.Ctx(), id, client.MemoryKeysOptions{Prefix: v.Prefix, Cursor: q.Get("cursor"), Limit: memoryBrowsePerPage})
	if err != nil {
		return err
	}
	keysURL := func(cursor string) string {
		p := url.Values{}
		if v.Prefix != "" {
			p.Set("prefix", v.Prefix)
		}
		if cursor != "" {
			p.Set("cursor", cursor)
		}
		u := Prefix + "memory/" + url.PathEscape(id) + "/keys"
		if len(p) > 0 {
			u += "?" + p.Encode()
		}
		return u
	}
	for _, k := range page.Data {
		row := memoryKeyRow{MemoryKey: k, EntriesURL: memoryEntriesURL(id, &k.Key, "", ""), Last: k.LastActivity}
		if t, err := time.Parse(time.RFC3339Nano, k.LastActivity); err == nil {
			row.Last = t.UTC().Format("2006-01-02 15:04 UTC")
		}
		v.Keys = append(v.Keys, row)
	}
	v.FirstURL = keysURL("")
	if page.NextCursor != nil {
		v.NextURL = keysURL(*page.NextCursor)
	}
	return req.Page(http.StatusOK, "memory_keys.html", v.Bank.Name+" · keys", "memory", v)
}
