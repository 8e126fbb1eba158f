package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// TestSurfaceCatches proves the surface check fails what it should: an
// operation the reference lacks, an implemented operation without
// exercises, a declared status nobody exercises (unless waived), a query
// parameter the reference does not declare, and exercises for operations
// the server or the reference lacks.
func TestSurfaceCatches(t *testing.T) {
	ref := reference(t)
	// A stand-in server surface, so the test does not move as the real one grows.
	api := humago.New(http.NewServeMux(), huma.DefaultConfig("surface test", "0"))
	type noInput struct{}
	type listInput struct {
		Page  int    `query:"page"`
		Limit int    `query:"limit"`
		Extra string `query:"extra"`
	}
	nop := func(context.Context, *noInput) (*struct{}, error) { return nil, nil }
	list := func(context.Context, *listInput) (*struct{}, error) { return nil, nil }
	secured := []map[string][]string{{"ApiKeyAuth": {}}}
	huma.Register(api, huma.Operation{OperationID: "me", Method: http.MethodGet, Path: "/me", Security: secured}, nop)
	huma.Register(api, huma.Operation{OperationID: "extra", Method: http.MethodGet, Path: "/not-in-the-reference", Security: secured}, nop)
	huma.Register(api, huma.Operation{OperationID: "ext", Method: http.MethodPost, Path: "/an-extension", Security: secured,
		Extensions: map[string]any{ExtensionKey: true}}, nop)
	huma.Register(api, huma.Operation{OperationID: "agents", Method: http.MethodGet, Path: "/agents", Security: secured}, list)
	huma.Register(api, huma.Operation{OperationID: "version", Method: http.MethodGet, Path: "/version", Security: secured}, nop)
	ops := ServerOps(api.OpenAPI())

	table := []Exercise{
		{Op: "GET /me", Name: "ok", Status: 200},
		{Op: "GET /agents", Name: "list", Status: 200},
		{Op: "DELETE /agents/{agent_id}", Name: "unserved", Status: 204},
		{Op: "GET /nowhere", Name: "not in the reference", Status: 200},
	}
	problems := surfaceProblems(ref, ops, table, nil)
	for op, fragment := range map[string]string{
		"GET /not-in-the-reference": "which the reference does not have",
		"GET /agents":               "declares query parameters [extra limit page]",
		"GET /version":              "has no exercise",
	} {
		if !contains(problems[op], fragment) {
			t.Errorf("%q: want a problem containing %q, got %q", op, fragment, problems[op])
		}
	}
	if len(problems["POST /an-extension"]) > 0 {
		t.Errorf("an operation marked %s is one of ours and allowed: %q", ExtensionKey, problems["POST /an-extension"])
	}
	for _, fragment := range []string{"which the server does not implement", "not an operation of the reference"} {
		if !contains(problems[""], fragment) {
			t.Errorf("table problems: want one containing %q, got %q", fragment, problems[""])
		}
	}
	if !contains(problems["GET /agents"], "declares 422 in the reference but no exercise") {
		t.Errorf("missing coverage of a declared status not reported: %q", problems["GET /agents"])
	}
	if len(problems["GET /me"]) > 0 {
		t.Errorf("GET /me: unexpected problems %q", problems["GET /me"])
	}
	if waived := surfaceProblems(ref, ops, table, map[string]map[int]string{"GET /agents": {422: "test"}}); contains(waived["GET /agents"], "declares 422") {
		t.Errorf("a waived status is still reported: %q", waived["GET /agents"])
	}
}

func contains(list []string, fragment string) bool {
	for _, s := range list {
		if strings.Contains(s, fragment) {
			return true
		}
	}
	return false
}

func TestIsInfrastructure(t *testing.T) {
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/openapi.json", "/openapi.yaml", "/openapi-3.0.json", "/docs", "/schemas/MeResponse.json"} {
		if !IsInfrastructure(p) {
			t.Errorf("%s should be infrastructure", p)
		}
	}
	for _, p := range []string{"/me", "/docs-search", "/metricsx", "/agents"} {
		if IsInfrastructure(p) {
			t.Errorf("%s should not be infrastructure", p)
		}
	}
}
