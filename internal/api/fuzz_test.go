package api_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

// fuzzAPI starts the full server on a fresh SQLite database and answers its
// handler and owner key. The fuzzers call the handler in-process: they need
// millions of requests, and the socket adds nothing to what is being fuzzed.
func fuzzAPI(f *testing.F) (http.Handler, string) {
	ts := testserver.Start(f, store.SQLite)
	return ts.S.Handler(), ts.Key
}

func serve(h http.Handler, r *http.Request) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// FuzzBodies sends arbitrary bytes as the body of PUT /version.
func FuzzBodies(f *testing.F) {
	h, key := fuzzAPI(f)
	for _, seed := range []string{`{"version":"2026-07-27"}`, `{"version":null}`, `{}`, `[]`, `{"version":1e400}`, "\xff\xfe", `{"version":"2026-07-27"`, `null`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("PUT", "/version", bytes.NewReader(body))
		r.Header.Set("X-API-Key", key)
		r.Header.Set("Content-Type", "application/json")
		if code := serve(h, r); code >= 500 {
			t.Fatalf("body %q: status %d", body, code)
		}
	})
}

// FuzzHeaders sends arbitrary credentials, account and version headers.
func FuzzHeaders(f *testing.F) {
	h, key := fuzzAPI(f)
	f.Add(key, "", "2026-07-27", "/me?x=1")
	f.Add("Bearer "+key, "not-a-uuid", "2026-13-45", "/version")
	f.Add("Bearer a.b.c", "01234567-89ab-7def-8123-456789abcdef", "", "/me")
	f.Fuzz(func(t *testing.T, authz, account, ver, target string) {
		r, err := http.NewRequest("GET", "http://x"+target, nil)
		if err != nil || r.URL.Path == "" {
			return
		}
		r.RequestURI = r.URL.RequestURI()
		r.Header["Authorization"] = []string{authz}
		r.Header["X-Account-Id"] = []string{account}
		r.Header["Service-Version"] = []string{ver}
		r.Body = io.NopCloser(bytes.NewReader(nil))
		if code := serve(h, r); code >= 500 {
			t.Fatalf("authz %q account %q version %q target %q: status %d", authz, account, ver, target, code)
		}
	})
}
