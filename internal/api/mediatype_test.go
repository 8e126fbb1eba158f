package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestNonJSONBodyIs415: a JSON operation sent another media type answers
// 415 {"detail": "…"}, as docs/errors.md says — it used to read
// text/plain and form encoding as JSON and answer 422 json_invalid. A
// missing Content-Type is read as JSON, and media types match whatever
// their case. Uploads refuse anything but multipart/form-data the same way.
func TestNonJSONBodyIs415(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "application/xml", "text/json"} {
			for _, body := range []string{`{"name":"a"}`, `name=a`} {
				r := s.Do(t, "POST", "/agents", s.Key, body, "Content-Type: "+ct)
				var e struct {
					Detail string `json:"detail"`
				}
				if r.Status != http.StatusUnsupportedMediaType {
					t.Fatalf("%s %q: %d %s, want 415", ct, body, r.Status, r.Body)
				}
				r.JSON(t, &e)
				if !strings.Contains(e.Detail, "application/json") {
					t.Errorf("%s: the 415 does not say what to send: %s", ct, r.Body)
				}
			}
		}
		for _, ct := range []string{"", "application/json", "Application/JSON; charset=UTF-8", "application/merge-patch+json"} {
			headers := []string{}
			if ct != "" {
				headers = append(headers, "Content-Type: "+ct)
			}
			req, _ := http.NewRequest("POST", s.URL+"/agents", strings.NewReader(`{"name":"a"}`))
			req.Header.Set("X-API-Key", s.Key)
			for _, h := range headers {
				name, v, _ := strings.Cut(h, ":")
				req.Header.Set(name, strings.TrimSpace(v))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("Content-Type %q: %d, want 201", ct, resp.StatusCode)
			}
		}
		// Uploads: JSON is not a file upload; a multipart type without its
		// boundary is malformed input.
		src := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "docs", "source_type": "custom_index"}))
		wantStatus(t, s.Do(t, "POST", "/sources/"+src+"/upload", s.Key, `{"file":"x"}`), http.StatusUnsupportedMediaType)
		r := s.Do(t, "POST", "/sources/"+src+"/upload", s.Key, "x", "Content-Type: multipart/form-data")
		wantLoc(t, r, "value_error", "header", "Content-Type")
		r = kupload(t, s, "/sources/"+src+"/upload", s.Key, "a.txt", "text/plain", []byte("hello"), nil, nil)
		wantStatus(t, r, http.StatusOK)
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"read","step_type":"text","text":"{{attachments[0]}} {{input}}"}]}`)
		wantStatus(t, s.Do(t, "POST", "/agents/"+agent+"/upload-input", s.Key, `{}`), http.StatusUnsupportedMediaType)
	})
}
