package isolation

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// NotFound expects the 404 another account's resource must answer —
// never 403, which would confirm it exists — with the error shape.
func NotFound() Expectation {
	return func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		if r.Status != http.StatusNotFound {
			t.Errorf("status %d, want 404: %.300s", r.Status, r.Body)
			return
		}
		var body struct {
			Detail string `json:"detail"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || body.Detail == "" {
			t.Errorf(`404 body is not {"detail": "…"}: %.300s`, r.Body)
		}
	}
}

// EmptyList expects a 200 list with no items. field names the list in the
// body ("data", "agents", …); "" means the body is the array itself.
func EmptyList(field string) Expectation {
	return func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		if n, ok := listLen(t, r, field); ok && n != 0 {
			t.Errorf("B sees %d of A's items: %.500s", n, r.Body)
		}
	}
}

// NonEmptyList is EmptyList's control: A sees its own items.
func NonEmptyList(field string) Expectation {
	return func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		if n, ok := listLen(t, r, field); ok && n == 0 {
			t.Errorf("A's own list is empty, so B's empty list proves nothing: %.500s", r.Body)
		}
	}
}

// Succeeds expects any 2xx; it is the default control.
func Succeeds() Expectation {
	return func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		if r.Status < 200 || r.Status > 299 {
			t.Errorf("status %d, want 2xx: %.300s", r.Status, r.Body)
		}
	}
}

// Status expects exactly one status, then runs more checks.
func Status(code int, more ...Expectation) Expectation {
	return func(t testing.TB, c *Ctx, r testserver.Response) {
		t.Helper()
		if r.Status != code {
			t.Errorf("status %d, want %d: %.300s", r.Status, code, r.Body)
			return
		}
		for _, m := range more {
			m(t, c, r)
		}
	}
}

func listLen(t testing.TB, r testserver.Response, field string) (int, bool) {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Errorf("status %d, want 200: %.300s", r.Status, r.Body)
		return 0, false
	}
	raw := json.RawMessage(r.Body)
	if field != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &obj); err != nil {
			t.Errorf("body is not an object: %v", err)
			return 0, false
		}
		var ok bool
		if raw, ok = obj[field]; !ok {
			t.Errorf("body has no %q: %.300s", field, r.Body)
			return 0, false
		}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Errorf("%q is not a list: %v", field, err)
		return 0, false
	}
	return len(items), true
}
