package web_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// upload posts a file in a multipart form with the CSRF token.
func (b *browser) upload(path, field, name string, content []byte) page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf", b.csrf)
	fw, err := w.CreateFormFile(field, name)
	if err != nil {
		b.t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = w.Close()
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+path, &body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return b.do(req)
}

func TestImportWithRemap(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		a := newBrowser(t, srv)
		a.signInWithKey(srv.Key)
		helper := a.createAgent("Helper", "blank")
		caller := a.createAgent("Caller", "blank")
		p := a.get("/console/agents/" + caller + "/workflow")
		_, change := editor(t, p)
		def := fmt.Sprintf(`{"name": "Caller", "child_steps": [{"id": "call", "name": "Call", "step_type": "call_agent", "agent_id": %q}]}`, helper)
		if p = a.post("/console/agents/"+caller+"/workflow", url.Values{"definition": {def}, "change_id": {change}}); p.Status != http.StatusOK {
			t.Fatalf("save caller: %d\n%s", p.Status, p.Body)
		}
		resp, err := a.hc.Get(srv.URL + "/console/agents/" + caller + "/export")
		if err != nil {
			t.Fatal(err)
		}
		export, _ := io.ReadAll(resp.Body)
		resp.Body.Close()

		other := srv.NewTenant(t, "bea")
		b := newBrowser(t, srv)
		b.signInWithKey(other.Key)
		mine := b.createAgent("Helper too", "blank")

		b.get("/console/agents/import")
		p = b.upload("/console/agents/import/preview", "file", "caller.agent.json", []byte("{not json"))
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a broken file: %d\n%s", p.Status, p.Body)
		}
		p = b.upload("/console/agents/import/preview", "file", "caller.agent.json", export)
		if p.Status != http.StatusOK {
			t.Fatalf("preview: %d\n%s", p.Status, p.Body)
		}
		// The unresolved reference, with this account's agent as the candidate.
		p.mustContain(t, "References this account lacks", helper, `name="remap.`+helper+`"`, `value="`+mine+`"`, "Helper too")
		if strings.Contains(p.Body, `value="`+caller+`"`) {
			t.Fatal("the preview offers the other account's agent")
		}
		p = b.post("/console/agents/import", url.Values{"name": {"Imported caller"}, "payload": {string(export)}, "remap." + helper: {mine}})
		if p.Status != http.StatusOK && p.Status != http.StatusCreated {
			t.Fatalf("import: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, "Imported", "Imported caller")
		m := agentLink.FindStringSubmatch(p.URL)
		id := ""
		if m != nil {
			id = m[1]
		} else if m = agentLink.FindStringSubmatch(p.Body); m != nil {
			id = m[1]
		}
		var got struct {
			Definition struct {
				ChildSteps []struct {
					AgentID string `json:"agent_id"`
				} `json:"child_steps"`
			} `json:"definition"`
		}
		srv.Do(t, "GET", "/agents/"+id+"/definition", other.Key, nil).JSON(t, &got)
		if len(got.Definition.ChildSteps) != 1 || got.Definition.ChildSteps[0].AgentID != mine {
			t.Fatalf("the imported call does not name this account's agent: %+v", got)
		}
	})
}
