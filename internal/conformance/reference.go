package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// ReferencePath is where the contract sits relative to some ancestor of the
// working directory (the checkout's parent holds shared/).
const ReferencePath = "shared/reference/openapi.json"

// ErrNoReference means no ancestor directory holds the contract.
var ErrNoReference = errors.New(ReferencePath + " not found in any parent directory")

// FindReference walks up from dir to the first directory holding
// shared/reference/openapi.json and returns that file's path.
func FindReference(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, filepath.FromSlash(ReferencePath))
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoReference
		}
		dir = parent
	}
}

// Reference is the loaded contract with a router over its paths.
type Reference struct {
	File   string
	Doc    *openapi3.T
	Router routers.Router
	// Ops maps "METHOD /path" to the operation, for every operation.
	Ops map[string]*openapi3.Operation
	// Extensions names the response fields our own document marks as
	// extensions (ExtensionFields): answers may carry them beyond the
	// reference's schemas.
	Extensions map[string]bool
}

var (
	refOnce sync.Once
	refVal  *Reference
	refErr  error
)

// LoadReference finds and loads the contract once per test binary.
// ErrNoReference (wrapped) means the caller should skip.
func LoadReference() (*Reference, error) {
	refOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			refErr = err
			return
		}
		file, err := FindReference(wd)
		if err != nil {
			refErr = fmt.Errorf("from %s: %w", wd, err)
			return
		}
		refVal, refErr = loadReference(file)
	})
	return refVal, refErr
}

func loadReference(file string) (*Reference, error) {
	l := openapi3.NewLoader()
	// The document is self-contained today, but the loader refuses any
	// external $ref unless allowed, and a split contract must still load.
	l.IsExternalRefsAllowed = true
	doc, err := l.LoadFromFile(file)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", file, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the reference document %s is not valid OpenAPI: %w", file, err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", file, err)
	}
	ref := &Reference{File: file, Doc: doc, Router: router, Ops: map[string]*openapi3.Operation{}}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ref.Ops[OpKey(method, path)] = op
		}
	}
	return ref, nil
}

// OpKey names an operation the way tables and reports do: "GET /me".
func OpKey(method, path string) string { return strings.ToUpper(method) + " " + path }

// SplitOpKey is the inverse of OpKey.
func SplitOpKey(key string) (method, path string) {
	method, path, _ = strings.Cut(key, " ")
	return method, path
}

// Keys returns the reference's operation keys, sorted.
func (r *Reference) Keys() []string {
	keys := make([]string, 0, len(r.Ops))
	for k := range r.Ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Route finds the reference operation a concrete request path reaches.
// Only method, path and query matter; the host is ignored because the
// contract declares no servers.
func (r *Reference) Route(method, target string) (*routers.Route, map[string]string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, nil, err
	}
	req := &http.Request{Method: method, URL: &url.URL{Path: u.Path, RawQuery: u.RawQuery}, Host: "localhost", Header: http.Header{}}
	return r.Router.FindRoute(req)
}

// Declared returns the status codes an operation documents, as numbers
// ("default" and ranges such as "4XX" are left out).
func Declared(op *openapi3.Operation) []int {
	var out []int
	for code := range op.Responses.Map() {
		var n int
		if _, err := fmt.Sscanf(code, "%d", &n); err == nil && len(code) == 3 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// QueryParams returns the names of the query parameters an operation
// declares, sorted.
func QueryParams(op *openapi3.Operation) []string {
	var out []string
	for _, p := range op.Parameters {
		if p != nil && p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
			out = append(out, p.Value.Name)
		}
	}
	sort.Strings(out)
	return out
}

// TestName turns an operation key into a subtest name that -run can select:
// "GET /agents/{agent_id}" becomes "GET_agents_{agent_id}" (a slash would
// split it into levels of subtests).
func TestName(op string) string {
	method, path := SplitOpKey(op)
	return method + "_" + strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "_")
}
