package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/testserver"
)

// client is the suite's HTTP client; the timeout turns a hung handler into
// a failure instead of a stuck test binary.
var client = &http.Client{Timeout: 30 * time.Second}

// Run performs one exercise on a fresh account of ts and checks the answer
// against the reference, reporting through t.
func Run(t *testing.T, ref *Reference, ts *testserver.Server, x Exercise) {
	t.Helper()
	e := &Env{Server: ts, Tenant: ts.NewTenant(t, "conformance"), Vars: Vars{}}
	if x.Setup != nil {
		if v := x.Setup(t, e); v != nil {
			e.Vars = v
		}
	}
	method, template := SplitOpKey(x.Op)
	target := x.Path
	if target == "" {
		target = template
	}
	target = Fill(target, e.Vars)
	if strings.Contains(target, "{") {
		t.Fatalf("%s: unfilled placeholder in %q (Setup returned %v)", x.Op, target, e.Vars)
	}

	body, err := encodeBody(x.Body, e.Vars)
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	req, err := http.NewRequest(method, ts.URL+target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch key := e.Key(t, x.As); {
	case x.As == OwnerBearer:
		req.Header.Set("Authorization", "Bearer "+key)
	case key != "":
		req.Header.Set("X-API-Key", key)
	}
	for _, h := range x.Headers {
		name, value, _ := strings.Cut(Fill(h, e.Vars), ":")
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	ex := &Exchange{Op: x.Op, Method: method, Target: target, ReqHeader: req.Header.Clone(), ReqBody: body,
		Authenticated: x.As.authenticated()}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	ex.Body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	ex.Status, ex.Header = resp.StatusCode, resp.Header

	if ex.Status != x.Status {
		t.Errorf("%s %s as %v: status %d, want %d\nbody: %.500s", method, target, x.As, ex.Status, x.Status, ex.Body)
	}
	if x.Schema != nil {
		if ex.Schema, err = x.Schema(ref); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range ref.CheckResponse(ex) {
		t.Errorf("%s %s → %d: %s", method, target, ex.Status, p)
	}
	if ex.Status >= 200 && ex.Status < 300 && ex.Status == x.Status {
		if err := ref.CheckRequest(ex); err != nil {
			t.Errorf("the request succeeded but the reference forbids it (fix the exercise, or the server's validation): %v", err)
		}
	}
	if x.Check != nil && ex.Status == x.Status {
		x.Check(t, e, testserver.Response{Status: ex.Status, Header: ex.Header, Body: ex.Body})
	}
}

// encodeBody turns an Exercise's Body into bytes (nil for no body).
func encodeBody(b any, vars Vars) ([]byte, error) {
	if f, ok := b.(func(Vars) any); ok {
		b = f(vars)
	}
	switch v := b.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(Fill(v, vars)), nil
	case []byte:
		return v, nil
	}
	return json.Marshal(b)
}
