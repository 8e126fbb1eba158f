package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/testserver"
)

// Helpers of the agents suites.

func wantStatus(t testing.TB, r testserver.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

func createAgent(t testing.TB, s *testserver.Server, key string, body any) api.AgentSummaryResponse {
	t.Helper()
	r := s.Do(t, "POST", "/agents", key, body)
	wantStatus(t, r, http.StatusCreated)
	var a api.AgentSummaryResponse
	r.JSON(t, &a)
	return a
}

// wantLoc asserts a 422 detail list holding an item at loc (and of typ when
// not "").
func wantLoc(t testing.TB, r testserver.Response, typ string, loc ...any) {
	t.Helper()
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", r.Status, r.Body)
	}
	var body struct {
		Detail []api.ValidationItem `json:"detail"`
	}
	r.JSON(t, &body)
	want, _ := json.Marshal(loc)
	for _, d := range body.Detail {
		got, _ := json.Marshal(d.Loc)
		if string(got) == string(want) && (typ == "" || d.Type == typ) && d.Msg != "" {
			return
		}
	}
	t.Fatalf("no 422 item at %s (type %q): %s", want, typ, r.Body)
}

// importErr is the 422 body of a rejected agent_definition.
type importErr struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Errors  []struct {
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"errors"`
	Source string `json:"source"`
}

func wantImportError(t testing.TB, r testserver.Response, path string) importErr {
	t.Helper()
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", r.Status, r.Body)
	}
	var ie importErr
	r.JSON(t, &ie)
	if ie.Error != "invalid_agent_definition" || ie.Source == "" || len(ie.Errors) == 0 {
		t.Fatalf("not an import error: %s", r.Body)
	}
	for _, e := range ie.Errors {
		if e.Path == path {
			if e.Line < 1 || e.Column < 1 {
				t.Fatalf("error at %s has no position: %+v", path, e)
			}
			return ie
		}
	}
	t.Fatalf("no import error at %s: %s", path, r.Body)
	return ie
}

// sourceLine returns line n (1-based) of an import error's source.
func sourceLine(ie importErr, n int) string {
	lines := strings.Split(ie.Source, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

type definitionBody struct {
	ChangeID      string              `json:"change_id"`
	Definition    map[string]any      `json:"definition"`
	SchemaVersion string              `json:"schema_version"`
	Warnings      []map[string]string `json:"warnings"`
}

func getDefinition(t testing.TB, s *testserver.Server, key, id string) definitionBody {
	t.Helper()
	r := s.Do(t, "GET", "/agents/"+id+"/definition", key, nil)
	wantStatus(t, r, http.StatusOK)
	var d definitionBody
	r.JSON(t, &d)
	return d
}

func exportAgent(t testing.TB, s *testserver.Server, key, id string) map[string]any {
	t.Helper()
	r := s.Do(t, "GET", "/agents/"+id+"/export?download=false", key, nil)
	wantStatus(t, r, http.StatusOK)
	var e map[string]any
	r.JSON(t, &e)
	return e
}

// multipartBody builds a multipart/form-data body with one file part and
// optional fields; it returns the body and its Content-Type.
func multipartBody(t testing.TB, field, filename, contentType string, content []byte, fields map[string]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if field != "" {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+field+`"; filename="`+filename+`"`)
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(content)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

func upload(t testing.TB, s *testserver.Server, key, agentID, filename, contentType string, content []byte) testserver.Response {
	t.Helper()
	body, ct := multipartBody(t, "file", filename, contentType, content, nil)
	return s.Do(t, "POST", "/agents/"+agentID+"/upload-input", key, body, "Content-Type: "+ct)
}

// waitUpload polls an upload until it leaves processing.
func waitUpload(t testing.TB, s *testserver.Server, key, agentID, uploadID string) api.UploadAgentInputResponse {
	t.Helper()
	// A bound for a stuck upload, not a speed test: the decompression
	// bomb's extraction inflates 128 MiB before it is stopped, which on
	// two cores shared with the rest of CI took over 20 s.
	const patience = 90 * time.Second
	deadline := time.Now().Add(patience)
	for {
		r := s.Do(t, "GET", "/agents/"+agentID+"/input-uploads/"+uploadID, key, nil)
		wantStatus(t, r, http.StatusOK)
		var u api.UploadAgentInputResponse
		r.JSON(t, &u)
		if u.Status != "processing" {
			return u
		}
		if time.Now().After(deadline) {
			t.Fatalf("upload %s still processing after %s", uploadID, patience)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stripIDs replaces, in a JSON tree, every string found in ids by its
// mapped value, so two definitions can be compared modulo remapped ids.
func stripIDs(v any, ids map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			out[k] = stripIDs(e, ids)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = stripIDs(e, ids)
		}
		return out
	case string:
		if to, ok := ids[t]; ok {
			return to
		}
	}
	return v
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var x, y any
	json.Unmarshal(ja, &x)
	json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

// zeroReader yields n zero bytes without holding them.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.n {
		p = p[:z.n]
	}
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}
