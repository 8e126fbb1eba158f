package conformance

import (
	"net/http"
	"sort"
	"strings"

	"github.com/agentry/agentry/internal/api"
	"github.com/danielgtaylor/huma/v2"
)

// infrastructure are the paths the server serves that are ours, not the
// contract's: probes, metrics and the generated documentation. Anything
// else the server offers must be an operation of the reference.
var infrastructure = []string{"/healthz", "/readyz", "/metrics", "/openapi", "/docs", "/schemas"}

// IsInfrastructure reports whether path is one of the server's own
// endpoints (or below one, e.g. /openapi.json, /schemas/Foo.json).
func IsInfrastructure(path string) bool {
	if strings.HasPrefix(path, "/openapi-") { // huma's OpenAPI 3.0 downgrade: /openapi-3.0.json
		return true
	}
	for _, p := range infrastructure {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// ServerOp is one operation of the server's generated OpenAPI document.
type ServerOp struct {
	Key string // "GET /me"
	Op  *huma.Operation
}

// Public reports whether the operation needs no credentials, so the
// derived "no credentials" exercise does not apply to it.
func (o ServerOp) Public() bool {
	if pub, _ := o.Op.Metadata["public"].(bool); pub {
		return true
	}
	return len(o.Op.Security) == 0
}

// ExtensionKey is api.ExtensionKey: the OpenAPI extension that marks an
// operation of ours the reference lacks, which the surface check lets through.
const ExtensionKey = api.ExtensionKey

// Extension reports whether the operation is one of our documented
// extensions rather than an operation of the reference.
func (o ServerOp) Extension() bool {
	ext, _ := o.Op.Extensions[ExtensionKey].(bool)
	return ext
}

// ExtensionFields names the schema properties the server's document marks
// with ExtensionKey: fields of ours the reference's schemas lack (a run's
// trace_id), which responses may carry.
func ExtensionFields(doc *huma.OpenAPI) map[string]bool {
	out := map[string]bool{}
	for _, sc := range doc.Components.Schemas.Map() {
		for name, p := range sc.Properties {
			if ext, _ := p.Extensions[ExtensionKey].(bool); ext {
				out[name] = true
			}
		}
	}
	return out
}

// QueryParams returns the names of the query parameters the operation declares.
func (o ServerOp) QueryParams() []string {
	var out []string
	for _, p := range o.Op.Parameters {
		if p.In == "query" {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ServerOps lists the operations of the server's own OpenAPI document
// (infrastructure paths excluded), sorted by key. This is the single
// definition of "implemented" the conformance and isolation suites share.
func ServerOps(doc *huma.OpenAPI) []ServerOp {
	var out []ServerOp
	for path, item := range doc.Paths {
		if IsInfrastructure(path) {
			continue
		}
		for method, op := range map[string]*huma.Operation{
			http.MethodGet: item.Get, http.MethodPut: item.Put, http.MethodPost: item.Post,
			http.MethodDelete: item.Delete, http.MethodPatch: item.Patch, http.MethodHead: item.Head,
			http.MethodOptions: item.Options, http.MethodTrace: item.Trace,
		} {
			if op != nil {
				out = append(out, ServerOp{Key: OpKey(method, path), Op: op})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
