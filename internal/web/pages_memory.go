package web

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/agentry/agentry/client"
)

// The memory area: the banks (a page of them at a time), a bank's page
// (settings, what its entries add up to, its busiest keys, the agents
// using it), browsing its keys and entries (pages_memory_browse.go),
// compaction — a dry run first, whose result offers compacting for real —
// and reset, and the memory-bank assistant, whose proposals are accepted
// (creating the bank) or declined here.

func init() { registerArea((*Console).memoryRoutes) }

func (c *Console) memoryRoutes() {
	c.page("GET "+Prefix+"memory", c.memoryList)
	c.page("POST "+Prefix+"memory/assistant", c.memoryAsk)
	c.page("POST "+Prefix+"memory/assistant/{id}/{decision}", c.memoryDecide)
	c.page("GET "+Prefix+"memory/{id}", c.memoryBankPage)
	c.page("GET "+Prefix+"memory/{id}/stats", c.memoryBankStats)
	c.page("GET "+Prefix+"memory/{id}/entries", c.memoryEntries) // pages_memory_browse.go
	c.page("GET "+Prefix+"memory/{id}/keys", c.memoryKeys)
	c.page("POST "+Prefix+"memory/{id}/dry-run", c.memoryDryRun)
	c.page("POST "+Prefix+"memory/{id}/compact", c.memoryCompact)
	c.page("POST "+Prefix+"memory/{id}/reset", c.memoryReset)
}

const memoryBanksPerPage = 25

type memoryListView struct {
	Banks    []client.MemoryBank
	Total    int
	Pager    pager
	Type     string
	Proposal *client.MemoryAssistantResponse
	Config   []configLine
	Problem  string
	Notice   string
}

func (v memoryListView) flash() string { return v.Notice }

// configLine is one setting of a proposal, for display.
type configLine struct{ Key, Value string }

func configLines(m map[string]any) []configLine {
	out := make([]configLine, 0, len(m))
	for k, v := range m {
		if v == nil {
			continue
		}
		out = append(out, configLine{k, fmt.Sprint(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func (c *Console) loadMemoryList(req *Request, v *memoryListView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	page := pageParam(req, "page")
	if t := req.URL.Query().Get("type"); t == "conversation" || t == "general" {
		v.Type = t
	}
	banks, err := cl.ListMemoryBanks(req.Ctx(), client.MemoryBankListOptions{Page: page, Limit: memoryBanksPerPage, Type: v.Type})
	if err != nil {
		return err
	}
	v.Banks, v.Total = banks.Items, banks.Total
	v.Pager = pagerLinks(Prefix+"memory", "page", page, banks.Total > page*memoryBanksPerPage, "type", v.Type)
	return nil
}

func (c *Console) memoryList(req *Request) error {
	v := memoryListView{Problem: req.URL.Query().Get("problem")}
	switch req.URL.Query().Get("done") {
	case "declined":
		v.Notice = "Proposal declined: nothing changed."
	case "deleted":
		v.Notice = "Bank deleted."
	}
	if err := c.loadMemoryList(req, &v); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "memory_list.html", "Memory banks", "memory", v)
}

// memoryAsk asks the memory-bank assistant to propose a bank's settings.
func (c *Console) memoryAsk(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	ask := strings.TrimSpace(req.PostFormValue("user_input"))
	if ask == "" {
		return req.Error(http.StatusBadRequest, "Describe what the bank should remember.")
	}
	v := memoryListView{}
	prop, err := cl.MemoryAssistant(req.Ctx(), client.MemoryAssistantRequest{UserInput: ask})
	if err != nil {
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode == http.StatusNotFound || ae.StatusCode >= 500 {
			return err
		}
		v.Problem = ae.Message
	} else {
		v.Proposal, v.Config = prop, configLines(prop.Config)
	}
	if err := c.loadMemoryList(req, &v); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "memory_list.html", "Memory banks", "memory", v)
}

// memoryDecide accepts a proposal (the API creates the bank, which then
// opens) or declines it.
func (c *Console) memoryDecide(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id, decision := req.PathValue("id"), req.PathValue("decision")
	if decision != "accept" && decision != "decline" {
		return req.Error(http.StatusNotFound, "There is no such page.")
	}
	if err := cl.DecideMemoryAssistant(req.Ctx(), id, decision == "accept"); err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && (ae.StatusCode == http.StatusConflict || ae.StatusCode == http.StatusUnprocessableEntity) {
			return req.Redirect(Prefix + "memory?problem=" + urlQueryEscape(ae.Message))
		}
		return err
	}
	if decision == "decline" {
		return req.Redirect(Prefix + "memory?done=declined")
	}
	// The newest bank is the one just created; its page opens.
	banks, err := cl.ListMemoryBanks(req.Ctx(), client.MemoryBankListOptions{Limit: 1})
	if err != nil || len(banks.Items) == 0 {
		return req.Redirect(Prefix + "memory")
	}
	return req.Redirect(Prefix + "memory/" + banks.Items[0].ID + "?done=created")
}

type keyCount struct {
	Key   string
	Count string
	URL   string // the key's entries
}

type memoryBankView struct {
	Bank       *client.MemoryBank
	Agents     []client.MemoryBankAgent
	DryRun     *client.CompactionTest
	DryPrompt  string
	Thresholds bool // compaction can run: at least one threshold is set
	Notice     string
	Problem    string
}

func (v memoryBankView) flash() string { return v.Notice }

func (c *Console) loadMemoryBank(req *Request, v *memoryBankView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if v.Bank, err = cl.GetMemoryBank(req.Ctx(), id); err != nil {
		return err
	}
	b := v.Bank
	v.Thresholds = b.MaxTurns != nil && *b.MaxTurns > 0 || b.MaxSizeTokens != nil && *b.MaxSizeTokens > 0 || b.MaxAgeDays != nil && *b.MaxAgeDays > 0
	if v.Agents, err = cl.MemoryBankAgents(req.Ctx(), id); err != nil {
		return err
	}
	return nil
}

// memoryStatsView is the stats panel of a bank's page.
type memoryStatsView struct {
	Numbers  []configLine // the stats' counts
	TopKeys  []keyCount
	KeyLabel string
}

// memoryBankStats is the stats panel, loaded by the bank's page after it
// renders: the API adds up every entry of the period (up to 100,000),
// which at that size takes longer than the rest of the page.
func (c *Console) memoryBankStats(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	bank, err := cl.GetMemoryBank(req.Ctx(), id)
	if err != nil {
		return err
	}
	stats, err := cl.MemoryBankStats(req.Ctx(), id, client.MemoryBankStatsOptions{})
	if err != nil {
		return err
	}
	var v memoryStatsView
	for _, k := range []string{"total_entries", "total_tokens", "summary_entries", "distinct_keys"} {
		if n, ok := stats[k]; ok {
			v.Numbers = append(v.Numbers, configLine{strings.ReplaceAll(k, "_", " "), fmt.Sprint(n)})
		}
	}
	v.KeyLabel, v.TopKeys = "conversation keys", topKeys(stats["top_conversation_keys"])
	if bank.Type == "general" {
		v.KeyLabel, v.TopKeys = "group keys", topKeys(stats["top_group_keys"])
	}
	for i := range v.TopKeys {
		v.TopKeys[i].URL = memoryEntriesURL(id, &v.TopKeys[i].Key, "", "")
	}
	return req.Fragment(http.StatusOK, "memory_bank.html", "stats", v)
}

// topKeys reads a stats top-ten list ([{key, count}] or {key: count}).
func topKeys(raw any) []keyCount {
	var out []keyCount
	switch t := raw.(type) {
	case []any:
		for _, it := range t {
			if m, ok := it.(map[string]any); ok {
				k := fmt.Sprint(m["key"])
				if k == "<nil>" {
					k = fmt.Sprint(m["value"])
				}
				out = append(out, keyCount{Key: k, Count: fmt.Sprint(m["count"])})
			}
		}
	case map[string]any:
		for k, n := range t {
			out = append(out, keyCount{Key: k, Count: fmt.Sprint(n)})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	}
	return out
}

func (c *Console) memoryBankPage(req *Request) error {
	v := memoryBankView{Problem: req.URL.Query().Get("problem")}
	switch req.URL.Query().Get("done") {
	case "created":
		v.Notice = "Bank created."
	case "compacting":
		v.Notice = "Compaction queued: the oldest entries of every key over a threshold are being summarised."
	case "reset":
		v.Notice = "Every entry of the bank was deleted."
	}
	if err := c.loadMemoryBank(req, &v); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "memory_bank.html", v.Bank.Name, "memory", v)
}

// memoryDryRun summarises the bank's oldest entries with the prompt given
// (or the bank's) without writing anything; its result offers the real
// compaction.
func (c *Console) memoryDryRun(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v := memoryBankView{DryPrompt: strings.TrimSpace(req.PostFormValue("compaction_prompt"))}
	in := client.TestCompactionRequest{}
	if v.DryPrompt != "" {
		in.CompactionPrompt = &v.DryPrompt
	}
	status := http.StatusOK
	v.DryRun, err = cl.TestMemoryBankCompaction(req.Ctx(), req.PathValue("id"), in)
	if err != nil {
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.StatusCode == http.StatusNotFound || ae.StatusCode >= 500 {
			return err
		}
		v.DryRun, v.Problem, status = nil, ae.Message, ae.StatusCode
	}
	if err := c.loadMemoryBank(req, &v); err != nil {
		return err
	}
	return req.Page(status, "memory_bank.html", v.Bank.Name, "memory", v)
}

func (c *Console) memoryCompact(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if _, err := cl.CompactMemoryBank(req.Ctx(), id); err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest {
			return req.Redirect(Prefix + "memory/" + id + "?problem=" + urlQueryEscape(ae.Message))
		}
		return err
	}
	return req.Redirect(Prefix + "memory/" + id + "?done=compacting")
}

// memoryReset deletes every entry of the bank (and its source); the bank
// and its settings stay.
func (c *Console) memoryReset(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if err := cl.DeleteMemoryBankSource(req.Ctx(), id); err != nil {
		return err
	}
	return req.Redirect(Prefix + "memory/" + id + "?done=reset")
}
