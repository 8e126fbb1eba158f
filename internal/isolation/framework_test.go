package isolation

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/conformance"
	"github.com/agentry/agentry/internal/testserver"
)

// recorder is a testing.TB that remembers failures instead of failing, so
// the expectations themselves can be shown to fail.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(string, ...any)     { r.failed = true }
func (r *recorder) Error(...any)              { r.failed = true }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = true; panic(fatal{fmt.Sprintf(f, a...)}) }

type fatal struct{ msg string }

func fails(t *testing.T, e Expectation, r testserver.Response) bool {
	rec := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(fatal); !ok {
					panic(v)
				}
			}
		}()
		e(rec, &Ctx{}, r)
	}()
	return rec.failed
}

// TestExpectationsCatch proves each expectation rejects the leaks it exists for.
func TestExpectationsCatch(t *testing.T) {
	t.Parallel()
	resp := func(status int, body string) testserver.Response {
		return testserver.Response{Status: status, Header: http.Header{}, Body: []byte(body)}
	}
	for _, c := range []struct {
		name string
		e    Expectation
		r    testserver.Response
		fail bool
	}{
		{"404 passes NotFound", NotFound(), resp(404, `{"detail":"Agent not found"}`), false},
		{"403 leaks existence", NotFound(), resp(403, `{"detail":"forbidden"}`), true},
		{"200 leaks the resource", NotFound(), resp(200, `{"id":"x"}`), true},
		{"404 in another shape", NotFound(), resp(404, `{"error":"nope"}`), true},
		{"empty bare list", EmptyList(""), resp(200, `[]`), false},
		{"leaked item in a bare list", EmptyList(""), resp(200, `[{"id":"a"}]`), true},
		{"empty envelope", EmptyList("data"), resp(200, `{"data":[],"pagination":{}}`), false},
		{"leaked item in an envelope", EmptyList("data"), resp(200, `{"data":[{"id":"a"}]}`), true},
		{"list field missing", EmptyList("data"), resp(200, `{"items":[]}`), true},
		{"list answered 404", EmptyList("data"), resp(404, `{"detail":"x"}`), true},
		{"control over an empty list", NonEmptyList("data"), resp(200, `{"data":[]}`), true},
		{"wrong status", Status(200), resp(201, `{}`), true},
		{"control failure", Succeeds(), resp(500, `{}`), true},
	} {
		if got := fails(t, c.e, c.r); got != c.fail {
			t.Errorf("%s: failed=%v, want %v", c.name, got, c.fail)
		}
	}
}

func TestUncovered(t *testing.T) {
	t.Parallel()
	ops := []conformance.ServerOp{{Key: "GET /me"}, {Key: "GET /agents"}}
	got := uncovered(ops, []Case{{Op: "GET /me"}})
	if len(got) != 1 || got[0] != "GET /agents" {
		t.Errorf("uncovered = %v, want [GET /agents]", got)
	}
	stale := unserved(ops, []Case{{Op: "GET /me"}, {Op: "DELETE /agents/{agent_id}"}, {Op: "DELETE /agents/{agent_id}"}})
	if len(stale) != 1 || stale[0] != "DELETE /agents/{agent_id}" {
		t.Errorf("unserved = %v, want [DELETE /agents/{agent_id}]", stale)
	}
}
