package cli_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// `agentry kb settings` and `agentry kb search --explain` against the real
// server on each database.
func TestKnowledgeSearchCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		var src, up, kb struct {
			ID        string
			ContentID string `json:"source_connection_content_version_id"`
		}
		ts.Do(t, "POST", "/sources", ts.Key, map[string]any{"name": "Docs", "source_type": "custom_index"}).JSON(t, &src)
		ts.Do(t, "POST", "/sources/"+src.ID, ts.Key, map[string]any{"text": "Refunds are paid within thirty days.", "title": "Refund policy"}).JSON(t, &up)
		deadline := time.Now().Add(20 * time.Second)
		for {
			var c map[string]any
			ts.Do(t, "GET", "/contents/"+up.ContentID, ts.Key, nil).JSON(t, &c)
			if c["content_status"] == "indexed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not indexed: %v", c)
			}
			time.Sleep(20 * time.Millisecond)
		}
		r := ts.Do(t, "POST", "/knowledge_bases", ts.Key, map[string]any{"name": "KB", "source_ids": []string{src.ID}})
		if r.Status != http.StatusCreated {
			t.Fatalf("kb: %s", r.Body)
		}
		r.JSON(t, &kb)

		var set client.SearchSettings
		run(t, append(g, "kb", "settings", "get", kb.ID)...).ok(t, &set)
		if set.Mode != "full_text" || set.Basis != "offline_embedder" || len(set.Explicit) != 0 {
			t.Fatalf("settings get: %+v", set)
		}
		run(t, append(g, "kb", "settings", "set", kb.ID, "--mode", "hybrid", "--feedback", "--candidate-depth", "40")...).ok(t, &set)
		if set.Mode != "hybrid" || !set.Feedback || set.CandidateDepth != 40 || set.VectorWeight != set.Defaults.VectorWeight {
			t.Fatalf("settings set: %+v", set)
		}
		run(t, append(g, "kb", "settings", "set", kb.ID, "--reset", "mode,feedback")...).ok(t, &set)
		if set.Mode != "full_text" || set.Feedback || len(set.Explicit) != 1 {
			t.Fatalf("settings reset: %+v", set)
		}
		if r := run(t, append(g, "kb", "settings", "set", kb.ID, "--mode", "fuzzy")...); r.code == 0 || !strings.Contains(r.stderr, "mode") {
			t.Fatalf("bad mode accepted: %+v", r)
		}

		var res client.KnowledgeSearchResponse
		run(t, append(g, "kb", "search", kb.ID, "when are refunds paid", "--explain", "--mode", "hybrid", "--vector-weight", "0.2")...).ok(t, &res)
		if len(res.Results) != 1 || res.Results[0].Explain == nil || res.Results[0].Explain.FusedRank != 1 || res.Explain == nil ||
			res.Explain.Settings.VectorWeight != 0.2 || strings.Join(res.Explain.QueryTerms, " ") != "refund paid" {
			t.Fatalf("search --explain: %+v", res)
		}
		tbl := run(t, append(g, "kb", "search", kb.ID, "refunds", "--explain", "-o", "table")...)
		tbl.ok(t, nil)
		if !strings.Contains(tbl.stdout, "FULL TEXT") || !strings.Contains(tbl.stdout, "Refund policy") {
			t.Fatalf("table:\n%s", tbl.stdout)
		}
	})
}
