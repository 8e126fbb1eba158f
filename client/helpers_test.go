package client_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agentry/agentry/client/sso"
)

// isolate clears every SERVICE_* variable the client reads and points the
// configuration directory and HOME at empty temporary directories, so the
// machine's own ~/.service never leaks into a test. It returns the config dir.
func isolate(t *testing.T) string {
	t.Helper()
	for _, k := range []string{"SERVICE_API_URL", "SERVICE_API_KEY", "SERVICE_PROFILE",
		sso.EnvDomain, sso.EnvClientID, sso.EnvRegion, sso.EnvClientSecret} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	t.Setenv("SERVICE_CONFIG_DIR", dir)
	t.Setenv("HOME", t.TempDir())
	return dir
}

// recorder is an API stand-in that remembers each request's headers.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
	body func(w http.ResponseWriter, r *http.Request)
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, r)
		rec.mu.Unlock()
		if rec.body != nil {
			rec.body(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"account_id":"00000000-0000-7000-8000-000000000000","organizations":[]}`)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *recorder) last(t *testing.T) *http.Request {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	return r.reqs[len(r.reqs)-1]
}
