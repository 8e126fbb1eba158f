package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/web"
)

// browser is a cookie-keeping HTTP client that reads pages and submits
// their forms as a browser would (the CSRF token included), against a
// real server over a loopback socket.
type browser struct {
	t    testing.TB
	srv  *testserver.Server
	hc   *http.Client
	csrf string // the token of the last page read
}

// page is a response with its body as text.
type page struct {
	Status int
	Header http.Header
	Body   string
	URL    string // the final URL, after redirects
}

func newBrowser(t testing.TB, srv *testserver.Server) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, srv: srv, hc: &http.Client{Jar: jar}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	p := page{Status: resp.StatusCode, Header: resp.Header, Body: string(body), URL: resp.Request.URL.Path}
	if m := csrfField.FindStringSubmatch(p.Body); m != nil {
		b.csrf = html.UnescapeString(m[1])
	}
	return p
}

// get reads a console page (path from the server's root).
func (b *browser) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post submits a form with the CSRF token of the last page read.
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// signInWithKey signs in through the sign-in form.
func (b *browser) signInWithKey(key string) page {
	b.t.Helper()
	b.get("/console/signin")
	p := b.post("/console/signin", url.Values{"api_key": {key}, "next": {"/console/account"}})
	if p.Status != http.StatusOK || strings.HasSuffix(p.URL, "/signin") {
		b.t.Fatalf("sign in: %d at %s\n%s", p.Status, p.URL, p.Body)
	}
	return p
}

// signInAs signs a user in with a one-time link.
func (b *browser) signInAs(userID string) page {
	b.t.Helper()
	link, err := web.NewSigninLink(context.Background(), b.srv.DB, userID)
	if err != nil {
		b.t.Fatal(err)
	}
	b.get(link)
	return b.post("/console/signin/link", url.Values{"token": {strings.TrimPrefix(link, "/console/signin/link/")}})
}

// mustContain fails unless the page has every snippet.
func (p page) mustContain(t testing.TB, snippets ...string) {
	t.Helper()
	for _, s := range snippets {
		if !strings.Contains(p.Body, s) {
			t.Fatalf("page %s (%d) lacks %q:\n%s", p.URL, p.Status, s, p.Body)
		}
	}
}

// start is a test server with the console on.
func start(t testing.TB, d store.Dialect) *testserver.Server {
	t.Helper()
	return testserver.Start(t, d)
}

// hashOf is how the console stores a token (sha256, hex).
func hashOf(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}
