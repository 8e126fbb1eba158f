package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The knowledge area's pages, on both databases, against a real server:
// every read and action goes through the API as the signed-in session.

var (
	sourceLink  = regexp.MustCompile(`/console/knowledge/sources/([0-9a-f-]{36})$`)
	baseLink    = regexp.MustCompile(`/console/knowledge/bases/([0-9a-f-]{36})$`)
	contentHref = regexp.MustCompile(`/console/knowledge/contents/([0-9a-f-]{36})"`)
)

// uploadAnswer is the console's answer to a streamed upload.
type uploadAnswer struct {
	ContentID, Status, Filename, URL, Error string
}

// streamUpload sends a file as the browser's script does: the bytes as the
// body, the name in X-File-Name, the CSRF token in its header.
func (b *browser) streamUpload(path, name, contentType, body string) (int, uploadAnswer) {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-File-Name", url.PathEscape(name))
	req.Header.Set("X-CSRF-Token", b.csrf)
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var a uploadAnswer
	var raw struct {
		ContentID string `json:"content_id"`
		Status    string `json:"status"`
		Filename  string `json:"filename"`
		URL       string `json:"url"`
		Error     string `json:"error"`
	}
	if resp.Header.Get("Content-Type") == "application/json" {
		if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
			b.t.Fatal(err)
		}
		a = uploadAnswer(raw)
	}
	return resp.StatusCode, a
}

// waitIndexed waits until no content of the source is on its way.
func waitIndexed(t *testing.T, srv *testserver.Server, key, sourceID string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var p struct{ Pagination struct{ Total int } }
		srv.Do(t, "GET", "/sources/"+sourceID+"/contents?status=pending", key, nil).JSON(t, &p)
		if p.Pagination.Total == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d contents still being indexed", p.Pagination.Total)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newSource creates a content store through the console and returns its id.
func newSource(t *testing.T, b *browser, name string) string {
	t.Helper()
	b.get("/console/knowledge")
	p := b.post("/console/knowledge/sources", url.Values{"name": {name}, "source_type": {"custom_index"}})
	m := sourceLink.FindStringSubmatch(p.URL)
	if m == nil {
		t.Fatalf("create source: %d %s\n%s", p.Status, p.URL, p.Body)
	}
	return m[1]
}

const harbourText = "The harbour master keeps the tide tables. Ships enter the harbour at high tide; the libraries of charts are kept ashore."

func TestKnowledgeSourcesAndContents(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/knowledge").mustContain(t, "No sources yet", "New source")

		// A refused form shows the API's reason beside it.
		p := b.post("/console/knowledge/sources", url.Values{"name": {""}, "source_type": {"custom_index"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("empty name: %d\n%s", p.Status, p.Body)
		}
		id := newSource(t, b, "Harbour handbook")
		p = b.get("/console/knowledge/sources/" + id)
		p.mustContain(t, "Harbour handbook", "No contents yet", `data-upload-url="/console/knowledge/sources/`+id+`/upload"`)

		// Upload streamed through the console, inline text, and a file
		// that cannot yield text (it fails with its reason).
		status, a := b.streamUpload("/console/knowledge/sources/"+id+"/upload", "tides.md", "text/markdown", "# Tides\n\n"+harbourText)
		if status != http.StatusOK || a.Status != "uploaded" || a.ContentID == "" || a.URL != "/console/knowledge/contents/"+a.ContentID {
			t.Fatalf("upload: %d %+v", status, a)
		}
		status, bad := b.streamUpload("/console/knowledge/sources/"+id+"/upload", "broken.pdf", "application/pdf", "%PDF-1.4 this is not a PDF at all")
		if status != http.StatusOK || bad.ContentID == "" {
			t.Fatalf("broken upload: %d %+v", status, bad)
		}
		// Refusals come back as JSON with the API's reason.
		if status, r := b.streamUpload("/console/knowledge/sources/"+id+"/upload", "tool.exe", "application/x-msdownload", "MZ\x90\x00binary"); status != http.StatusUnsupportedMediaType || r.Error == "" {
			t.Fatalf("unsupported type: %d %+v", status, r)
		}
		b.get("/console/knowledge/sources/" + id)
		p = b.post("/console/knowledge/sources/"+id+"/text", url.Values{"title": {"Note <b>bold</b>"}, "text": {"Pilots board ships outside the breakwater."}})
		p.mustContain(t, "Text added")
		// The list refreshes itself while contents are on their way (or
		// shows them done, on a fast machine) and stops once none is.
		waitIndexed(t, srv, srv.Key, id)
		p = b.get("/console/knowledge/sources/" + id + "/contents")
		if strings.Contains(p.Body, "hx-trigger") {
			t.Fatalf("the list still polls with every content done:\n%s", p.Body)
		}
		p.mustContain(t, "tides.md", "indexed", "broken.pdf", "failed", `class="error-text reason"`, "Note &lt;b&gt;bold&lt;/b&gt;")
		if strings.Contains(p.Body, "<b>bold</b>") {
			t.Fatal("a title was written as HTML")
		}
		// The status filter.
		p = b.get("/console/knowledge/sources/" + id + "?status=failed")
		p.mustContain(t, "broken.pdf", "1 failed contents")
		if strings.Contains(p.Body, "tides.md") {
			t.Fatal("the failed filter lists an indexed content")
		}
		b.get("/console/knowledge").mustContain(t, "Harbour handbook", ">3<")

		// The content page: status, metadata, text, passages.
		p = b.get(a.URL)
		p.mustContain(t, "tides.md", "searchable", "text/markdown", "harbour master", "Passages", "characters 0–")
		if strings.Contains(p.Body, "hx-trigger") {
			t.Fatal("an indexed content's status still polls")
		}
		b.get("/console/knowledge/contents/"+bad.ContentID).mustContain(t, "failed", `class="error-text reason"`)
		// Replace with text: a new version, the id stays.
		p = b.post("/console/knowledge/contents/"+a.ContentID+"/replace", url.Values{"text": {"Lighthouses guide ships at night."}})
		p.mustContain(t, "New version uploaded")
		waitIndexed(t, srv, srv.Key, id)
		b.get(a.URL).mustContain(t, "Lighthouses guide ships")
		var list struct {
			Data []struct {
				ID      string
				Version int
			}
		}
		srv.Do(t, "GET", "/sources/"+id+"/contents?status=indexed", srv.Key, nil).JSON(t, &list)
		found := false
		for _, c := range list.Data {
			if c.ID == a.ContentID {
				found = c.Version == 2
			}
		}
		if !found {
			t.Fatalf("the replaced content is not at version 2: %+v", list.Data)
		}
		// Replace with a file, streamed.
		if status, r := b.streamUpload("/console/knowledge/contents/"+a.ContentID+"/upload", "tides-v3.md", "text/markdown", "Moorings are checked at dawn."); status != http.StatusOK || r.ContentID != a.ContentID {
			t.Fatalf("replace upload: %d %+v", status, r)
		}
		waitIndexed(t, srv, srv.Key, id)
		b.get(a.URL).mustContain(t, "Moorings are checked")

		// No CSRF token: refused before anything reaches the API.
		saved := b.csrf
		b.csrf = "forged"
		if status, _ := b.streamUpload("/console/knowledge/sources/"+id+"/upload", "x.md", "text/markdown", "x"); status != http.StatusForbidden {
			t.Fatalf("upload without the token: %d", status)
		}
		b.csrf = saved
		// Delete a content, then the source.
		b.get(a.URL)
		p = b.post("/console/knowledge/contents/"+bad.ContentID+"/delete", nil)
		if !strings.HasSuffix(p.URL, "/console/knowledge/sources/"+id) {
			t.Fatalf("delete content: %d %s", p.Status, p.URL)
		}
		p = b.post("/console/knowledge/sources/"+id+"/delete", nil)
		if p.URL != "/console/knowledge" || srv.Do(t, "GET", "/sources/"+id, srv.Key, nil).Status != http.StatusNotFound {
			t.Fatalf("delete source: %d %s", p.Status, p.URL)
		}
	})
}

func TestKnowledgePolledSource(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/knowledge")
		p := b.post("/console/knowledge/sources", url.Values{"name": {"Port news"}, "source_type": {"rss"},
			"url": {"https://news.example.invalid/feed.xml"}, "polling": {"hourly"}})
		m := sourceLink.FindStringSubmatch(p.URL)
		if m == nil {
			t.Fatalf("create rss: %d %s\n%s", p.Status, p.URL, p.Body)
		}
		id := m[1]
		p.mustContain(t, "Port news", "https://news.example.invalid/feed.xml", "hourly", "Last fetch", "Pause polling")
		p = b.post("/console/knowledge/sources/"+id+"/polling", url.Values{"polling": {"never"}})
		p.mustContain(t, "Polling paused.", "Resume polling", "none while paused")
		var src struct{ Polling string }
		srv.Do(t, "GET", "/sources/"+id, srv.Key, nil).JSON(t, &src)
		if src.Polling != "never" {
			t.Fatalf("polling after pause: %q", src.Polling)
		}
		b.get("/console/knowledge").mustContain(t, "Port news", "paused")
		p = b.post("/console/knowledge/sources/"+id+"/polling", url.Values{"polling": {"weekly"}})
		p.mustContain(t, "Polling resumed.", "weekly")
		// A schedule the API refuses is shown, not a 500.
		p = b.post("/console/knowledge/sources/"+id+"/polling", url.Values{"polling": {"every full moon"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("bad schedule: %d\n%s", p.Status, p.Body)
		}
	})
}

func TestKnowledgeExportsAndMigration(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		id := newSource(t, b, "Logbook")
		b.get("/console/knowledge/sources/" + id)
		b.post("/console/knowledge/sources/"+id+"/text", url.Values{"title": {"Entry one"}, "text": {"Fog in the channel, speed reduced."}})
		waitIndexed(t, srv, srv.Key, id)
		p := b.post("/console/knowledge/sources/"+id+"/exports", url.Values{"format": {"jsonl"}})
		p.mustContain(t, "Export started.", "jsonl")
		var exports struct {
			Data []struct{ ID, Status string }
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			srv.Do(t, "GET", "/sources/"+id+"/exports", srv.Key, nil).JSON(t, &exports)
			if len(exports.Data) == 1 && exports.Data[0].Status == "completed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("export: %+v", exports.Data)
			}
			time.Sleep(50 * time.Millisecond)
		}
		exportID := exports.Data[0].ID
		p = b.get("/console/knowledge/sources/" + id + "/jobs")
		p.mustContain(t, "completed", "/exports/"+exportID+"/download")
		if strings.Contains(p.Body, "hx-trigger") {
			t.Fatal("the jobs block still polls with the export done")
		}
		p = b.get("/console/knowledge/sources/" + id + "/exports/" + exportID + "/download")
		if p.Status != http.StatusOK || !strings.Contains(p.Body, "Fog in the channel") || !strings.Contains(p.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("download: %d %v\n%.300s", p.Status, p.Header, p.Body)
		}
		// A finished export cannot be cancelled: the API's 409 is shown.
		b.get("/console/knowledge/sources/" + id)
		if p = b.post("/console/knowledge/sources/"+id+"/exports/"+exportID+"/cancel", nil); p.Status != http.StatusConflict {
			t.Fatalf("cancel a completed export: %d", p.Status)
		}
		// An embedding migration: a refused size is a problem on the page,
		// then a real one starts and shows its progress.
		b.get("/console/knowledge/sources/" + id)
		p = b.post("/console/knowledge/sources/"+id+"/migration", url.Values{"model": {"agentry_offline_embed"}, "dimensions": {"lots"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad dimensions: %d", p.Status)
		}
		p = b.post("/console/knowledge/sources/"+id+"/migration", url.Values{"model": {"agentry_offline_embed"}, "dimensions": {"384"}})
		p.mustContain(t, "Embedding migration started.", "Embedding migration</strong> to agentry_offline_embed, 384 dimensions")
		var mig struct{ Status string }
		deadline = time.Now().Add(60 * time.Second)
		for {
			srv.Do(t, "GET", "/sources/"+id+"/embedding-migration", srv.Key, nil).JSON(t, &mig)
			if mig.Status == "completed" || mig.Status == "failed" || mig.Status == "cancelled" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("migration: %+v", mig)
			}
			time.Sleep(50 * time.Millisecond)
		}
		p = b.get("/console/knowledge/sources/" + id + "/jobs")
		p.mustContain(t, mig.Status)
		if mig.Status == "completed" {
			// Too late to cancel: the API's answer is on the page.
			b.get("/console/knowledge/sources/" + id)
			if p = b.post("/console/knowledge/sources/"+id+"/migration/cancel", nil); p.Status != http.StatusConflict {
				t.Fatalf("cancel a finished migration: %d\n%.400s", p.Status, p.Body)
			}
		}
	})
}

func TestKnowledgeBaseHitTesting(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		id := newSource(t, b, "Port rules")
		b.get("/console/knowledge/sources/" + id)
		b.post("/console/knowledge/sources/"+id+"/text", url.Values{"title": {"Harbour"}, "text": {harbourText}})
		b.get("/console/knowledge/sources/" + id)
		b.post("/console/knowledge/sources/"+id+"/text", url.Values{"title": {"Markup"}, "text": {"A <script>alert('harbour')</script> tag in a harbour note."}})
		waitIndexed(t, srv, srv.Key, id)

		p := b.get("/console/knowledge")
		// No source chosen: the API's 422 next to the form.
		p = b.post("/console/knowledge/bases", url.Values{"name": {"Empty"}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("knowledge base without sources: %d\n%s", p.Status, p.Body)
		}
		p = b.post("/console/knowledge/bases", url.Values{"name": {"Port KB"}, "source_id": {id}})
		m := baseLink.FindStringSubmatch(p.URL)
		if m == nil {
			t.Fatalf("create knowledge base: %d %s\n%s", p.Status, p.URL, p.Body)
		}
		kb := m[1]
		p.mustContain(t, "Port KB", "Port rules", "Hit testing", "Search settings", `name="vector_weight"`)

		// The whole page (no script) and the htmx fragment answer alike.
		form := url.Values{"q": {"libraries harbour"}, "mode": {"full_text"}, "vector_weight": {"0.1"}, "candidate_depth": {"30"}}
		p = b.post("/console/knowledge/bases/"+kb+"/test", form)
		p.mustContain(t, "#1", "full text", "fused #1", "<mark>libraries</mark>", "<mark>harbour</mark>", "Harbour</a>")
		if !contentHref.MatchString(p.Body) {
			t.Fatal("a hit does not link its content")
		}
		// The passage is text: markup in it is escaped, never run.
		if strings.Contains(p.Body, "<script>alert") || !strings.Contains(p.Body, "&lt;script&gt;") {
			t.Fatalf("passage markup not escaped:\n%s", p.Body)
		}
		// An unsaved setting applies to the test and is named.
		form.Set("candidate_depth", "50")
		form.Set("feedback", "on")
		req := func(form url.Values) page {
			r, _ := http.NewRequest(http.MethodPost, srv.URL+"/console/knowledge/bases/"+kb+"/test", strings.NewReader(form.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("HX-Request", "true")
			r.Header.Set("X-CSRF-Token", b.csrf)
			return b.do(r)
		}
		p = req(form)
		p.mustContain(t, `<div id="hits">`, "depth 50, feedback", "Unsaved: candidate_depth, feedback")
		if strings.Contains(p.Body, "<html") {
			t.Fatal("the htmx answer is a whole page")
		}
		// Bad values: shown with the field, not a 500.
		form.Set("vector_weight", "heavy")
		if p = req(form); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "vector_weight") {
			t.Fatalf("bad weight: %d\n%s", p.Status, p.Body)
		}
		form.Set("vector_weight", "7")
		if p = req(form); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("weight out of range: %d\n%s", p.Status, p.Body)
		}
		form.Set("vector_weight", "0.1")
		if p = req(url.Values{"q": {""}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("empty query: %d", p.Status)
		}
		// Saving makes the form's settings the knowledge base's.
		b.get("/console/knowledge/bases/" + kb)
		p = b.post("/console/knowledge/bases/"+kb+"/settings", form)
		p.mustContain(t, "Search settings saved.")
		var s struct {
			CandidateDepth int `json:"candidate_depth"`
			Feedback       bool
		}
		srv.Do(t, "GET", "/knowledge_bases/"+kb+"/search-settings", srv.Key, nil).JSON(t, &s)
		if s.CandidateDepth != 50 || !s.Feedback {
			t.Fatalf("saved settings: %+v", s)
		}
		if p = req(form); strings.Contains(p.Body, "Unsaved") {
			t.Fatalf("saved settings still named unsaved:\n%s", p.Body)
		}
		b.get("/console/knowledge").mustContain(t, "Port KB")
		b.get("/console/knowledge/bases/" + kb)
		if p = b.post("/console/knowledge/bases/"+kb+"/delete", nil); p.URL != "/console/knowledge" {
			t.Fatalf("delete knowledge base: %d %s", p.Status, p.URL)
		}
	})
}

// Another account's sources, contents, knowledge bases and exports are
// 404s on every page and action, as in the API; and a member of an
// organization uses its knowledge as the API lets a member.
func TestKnowledgeIsolationAndRoles(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		owner := newBrowser(t, srv)
		owner.signInWithKey(srv.Key)
		id := newSource(t, owner, "Private source")
		owner.get("/console/knowledge/sources/" + id)
		_, up := owner.streamUpload("/console/knowledge/sources/"+id+"/upload", "secret.md", "text/markdown", "The vault code is 0000.")
		waitIndexed(t, srv, srv.Key, id)
		owner.get("/console/knowledge")
		p := owner.post("/console/knowledge/bases", url.Values{"name": {"Private KB"}, "source_id": {id}})
		kb := baseLink.FindStringSubmatch(p.URL)[1]
		owner.get("/console/knowledge/sources/" + id)
		owner.post("/console/knowledge/sources/"+id+"/exports", url.Values{"format": {"csv"}})
		var exports struct{ Data []struct{ ID string } }
		srv.Do(t, "GET", "/sources/"+id+"/exports", srv.Key, nil).JSON(t, &exports)

		other := srv.NewTenant(t, "mallory")
		b := newBrowser(t, srv)
		b.signInWithKey(other.Key)
		if p := b.get("/console/knowledge"); strings.Contains(p.Body, "Private") {
			t.Fatal("another account lists the sources or knowledge bases")
		}
		for _, path := range []string{"/console/knowledge/sources/" + id, "/console/knowledge/sources/" + id + "/contents",
			"/console/knowledge/sources/" + id + "/jobs", "/console/knowledge/contents/" + up.ContentID,
			"/console/knowledge/contents/" + up.ContentID + "/status", "/console/knowledge/bases/" + kb,
			"/console/knowledge/sources/" + id + "/exports/" + exports.Data[0].ID + "/download"} {
			if p := b.get(path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "vault") || strings.Contains(p.Body, "Private") {
				t.Errorf("GET %s as another account: %d", path, p.Status)
			}
		}
		b.get("/console/knowledge")
		for path, form := range map[string]url.Values{
			"/sources/" + id + "/polling": {"polling": {"never"}}, "/sources/" + id + "/text": {"text": {"x"}},
			"/sources/" + id + "/delete": nil, "/sources/" + id + "/exports": {"format": {"csv"}},
			"/sources/" + id + "/exports/" + exports.Data[0].ID + "/cancel": nil,
			"/sources/" + id + "/migration":                                 {"model": {"agentry_offline_embed"}, "dimensions": {"256"}},
			"/sources/" + id + "/migration/cancel":                          nil,
			"/contents/" + up.ContentID + "/replace":                        {"text": {"owned"}}, "/contents/" + up.ContentID + "/delete": nil,
			"/bases/" + kb + "/test": {"q": {"vault"}}, "/bases/" + kb + "/settings": {"mode": {"vector"}}, "/bases/" + kb + "/delete": nil,
		} {
			if p := b.post("/console/knowledge"+path, form); p.Status != http.StatusNotFound || strings.Contains(p.Body, "vault") {
				t.Errorf("POST %s as another account: %d", path, p.Status)
			}
		}
		for _, path := range []string{"/console/knowledge/sources/" + id + "/upload", "/console/knowledge/contents/" + up.ContentID + "/upload"} {
			if status, _ := b.streamUpload(path, "evil.md", "text/markdown", "owned"); status != http.StatusNotFound {
				t.Errorf("upload to %s as another account: %d", path, status)
			}
		}
		owner.get("/console/knowledge/contents/"+up.ContentID).mustContain(t, "The vault code is 0000.")
		if owner.get("/console/knowledge/bases/"+kb).Status != http.StatusOK {
			t.Fatal("the owner's knowledge base changed")
		}

		// A member of an organization (not an admin) works with the
		// organization's knowledge: the API allows it, and the console
		// decides nothing on its own.
		ctx := context.Background()
		org, err := directory.CreateAccount(ctx, srv.DB, directory.KindOrganization, "Harbour Co", 1000)
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, srv.DB, org.ID, other.UserID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		m := newBrowser(t, srv)
		m.signInAs(other.UserID)
		m.get("/console/account")
		if p := m.post("/console/account/switch", url.Values{"account_id": {org.ID}}); p.Status != http.StatusOK {
			t.Fatalf("switch: %d", p.Status)
		}
		orgSource := newSource(t, m, "Org docs")
		memberKey := srv.IssueKey(t, org.ID, other.UserID, store.RoleMember)
		var src struct{ Name string }
		srv.Do(t, "GET", "/sources/"+orgSource, memberKey, nil).JSON(t, &src)
		if src.Name != "Org docs" {
			t.Fatalf("the source is not the organization's: %+v", src)
		}
		// Still not the owner's account.
		if p := m.get("/console/knowledge/sources/" + id); p.Status != http.StatusNotFound {
			t.Fatalf("a member of another organization reads the source: %d", p.Status)
		}
	})
}
