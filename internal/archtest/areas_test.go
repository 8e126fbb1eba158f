package archtest

import (
	"go/ast"
	"path"
	"sort"
	"strings"
	"testing"
)

// areaPackages are the packages under internal/ that hold an area's
// service, by area: the first element of the path (mail/inbound is in
// area mail).
var areaPackages = []string{
	"accounts", "agents", "alerts", "evals", "governance", "knowledge", "knowledge/exports",
	"mail/dmarc", "mail/domains", "mail/inbound", "mail/protect", "mail/sending", "mcpexpose", "memory",
	"models/defaults", "models/modelalerts", "playground", "regressions", "runs", "secrets", "solutions",
}

// areaImports are the imports from one area's service package into
// another area's that are allowed, each because the importer uses that
// service or its values, not to adapt it. An adapter between two areas
// (a type that wraps another area's service to implement an interface of
// its own, like runs' old AgentsArea or knowledge's RunsFirer) lives in
// the wiring, internal/server/wiring.go: the consumer declares the small
// interface it needs and does not import the other area at all.
var areaImports = map[string]string{
	"alerts → secrets":      "webhook signatures: the secrets area's Secret and ErrMissingSecret",
	"mail → runs":           "inbound mail starts runs; its protections cancel an account's parked runs",
	"mail → secrets":        "email domains seal their DKIM keys with the secrets box",
	"memory → knowledge":    "memory banks are knowledge sources, searched and written through it",
	"regressions → evals":   "a regression's replays are judged by the evaluations area",
	"regressions → runs":    "a regression's replays are runs",
	"runs → secrets":        "steps sign with the account's secrets (runs.Secrets names secrets.Secret)",
	"solutions → agents":    "the assistants create and edit agents",
	"solutions → knowledge": "plans check polling settings with the knowledge area's parser",
}

func area(pkg string) string { return strings.SplitN(pkg, "/", 2)[0] }

// TestAreasDoNotAdapt fails when an area's service package imports another
// area's outside areaImports — in particular the adapter imports that
// moved to the wiring: runs → agents, knowledge → runs, models → alerts.
func TestAreasDoNotAdapt(t *testing.T) {
	isArea := map[string]bool{}
	for _, p := range areaPackages {
		isArea[p] = true
	}
	used := map[string]bool{}
	for _, p := range areaPackages {
		for _, g := range sources(t, "internal/"+p, false, false) {
			for _, imp := range imports(g.file) {
				to, ok := strings.CutPrefix(imp, module+"internal/")
				if !ok || !isArea[to] || area(to) == area(p) {
					continue
				}
				pair := area(p) + " → " + area(to)
				if _, ok := areaImports[pair]; !ok {
					t.Errorf("%s imports %s: an adapter between areas belongs in internal/server/wiring.go "+
						"(declare the small interface %s needs; the server supplies the adapter)", g.path, imp, p)
				}
				used[pair] = true
			}
		}
	}
	for pair := range areaImports {
		if !used[pair] {
			t.Errorf("areaImports allows %q, which no area imports any more: remove it", pair)
		}
	}
}

// TestAreaPackagesAreListed keeps areaPackages whole: every package under
// internal/ (but the server's) that declares a Service type is an area's.
func TestAreaPackagesAreListed(t *testing.T) {
	listed := map[string]bool{}
	for _, p := range areaPackages {
		listed[p] = true
	}
	var missing []string
	for _, g := range sources(t, "internal", true, false) {
		pkg := strings.TrimPrefix(path.Dir(g.path), "internal/")
		if listed[pkg] || area(pkg) == "server" {
			continue
		}
		for _, d := range g.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Service" {
					missing = append(missing, pkg)
				}
			}
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("internal/%s declares a Service but is not in areaPackages", p)
	}
}

// TestServicesAreBuiltWhole keeps the server's assembly to one style: each
// service gets every dependency from its constructor. Nothing in
// internal/server assigns a field of a service it holds (s.Runs.Queue = …)
// or calls a Set… method on one (s.Knowledge.SetQueue(…)); a dependency
// that cannot exist yet is bound late the one way late.go describes.
func TestServicesAreBuiltWhole(t *testing.T) {
	onService := func(e ast.Expr) bool { // s.<Field>.<…>
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		inner, ok := sel.X.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := inner.X.(*ast.Ident)
		return ok && id.Name == "s"
	}
	for _, g := range sources(t, "internal/server", false, false) {
		ast.Inspect(g.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if onService(l) {
						t.Errorf("%s: assigns a field of a service after construction", g.fset.Position(l.Pos()))
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && onService(sel) && strings.HasPrefix(sel.Sel.Name, "Set") {
					t.Errorf("%s: completes a service with %s after construction", g.fset.Position(n.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
