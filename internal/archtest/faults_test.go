package archtest

import (
	"go/ast"
	"strconv"
	"strings"
	"testing"
)

// importNames maps the names a file uses for its imports to their paths.
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		out[name] = p
	}
	return out
}

// errorsMayName are the packages of the module whose errors the API may
// still tell apart itself: the vocabulary, and authentication, which the
// API's own middleware answers (401, 403, the X-Account-Id 422).
var errorsMayName = map[string]bool{module + "internal/fault": true, module + "internal/auth": true}

// The areas say why a request fails in the fault vocabulary and the API
// answers it from one table (problem in internal/api/errors.go). It had 17
// per-area mappers (agentError, runError, …) and checked store.ErrNotFound
// in some 45 places; none of that comes back: outside its tests the API
// names no error of the store or of an area in errors.Is or errors.As, and
// declares no function that maps an error to an error (respond, which
// hands an error to the table for a stream's error event, aside).
func TestAPIAnswersFaultsInOneTable(t *testing.T) {
	mapperAllowed := map[string]bool{"respond": true}
	for _, g := range sources(t, "internal/api", false, false) {
		names := importNames(g.file)
		// areaPkg reports the module package a selector's X names, if any
		// other than those errorsMayName allows.
		areaPkg := func(e ast.Expr) (string, bool) {
			if st, ok := e.(*ast.StarExpr); ok {
				e = st.X
			}
			sel, ok := e.(*ast.SelectorExpr)
			if !ok {
				return "", false
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return "", false
			}
			p, ok := names[id.Name]
			if !ok || !strings.HasPrefix(p, module) || errorsMayName[p] {
				return "", false
			}
			return id.Name + "." + sel.Sel.Name, true
		}
		for _, d := range g.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if mapsErrors(fn.Type) && !mapperAllowed[fn.Name.Name] {
				t.Errorf("%s: %s maps an error to an error: return the area's fault and let the table in errors.go answer it",
					g.fset.Position(fn.Pos()), fn.Name.Name)
			}
			if fn.Body == nil {
				continue
			}
			// The declared types of the function's variables, for errors.As targets.
			varType := map[string]ast.Expr{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok && vs.Type != nil {
					for _, nm := range vs.Names {
						varType[nm.Name] = vs.Type
					}
				}
				return true
			})
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 2 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Is" && sel.Sel.Name != "As") {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); !ok || names[id.Name] != "errors" {
					return true
				}
				target := call.Args[1]
				if u, ok := target.(*ast.UnaryExpr); ok {
					if id, ok := u.X.(*ast.Ident); ok && varType[id.Name] != nil {
						target = varType[id.Name]
					}
				}
				if name, ok := areaPkg(target); ok {
					t.Errorf("%s: errors.%s on %s: the area returns it as a fault (internal/fault) and the table answers it",
						g.fset.Position(call.Pos()), sel.Sel.Name, name)
				}
				return true
			})
		}
		ast.Inspect(g.file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] == module+"internal/store" &&
				(strings.HasPrefix(sel.Sel.Name, "Err") || strings.HasSuffix(sel.Sel.Name, "Error")) {
				t.Errorf("%s: names the store's %s: errors reach the API as faults", g.fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// mapsErrors reports whether a function's signature is a mapper's: it
// takes an error and returns a single error (or *Error).
func mapsErrors(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) != 1 || len(ft.Results.List[0].Names) > 1 {
		return false
	}
	res := ft.Results.List[0].Type
	if st, ok := res.(*ast.StarExpr); ok {
		res = st.X
	}
	if id, ok := res.(*ast.Ident); !ok || (id.Name != "error" && id.Name != "Error") {
		return false
	}
	for _, p := range ft.Params.List {
		if id, ok := p.Type.(*ast.Ident); ok && id.Name == "error" {
			return true
		}
	}
	return false
}

// Outside its tests (which seed through the store), the API does not
// import the store: errors reach it as faults, and the rows its handlers
// turn into responses under the names of the areas that return them
// (agents.Agent, runs.RunListItem…; aliases of the store's types for now,
// in each area's rows.go).
func TestAPIDoesNotImportTheStore(t *testing.T) {
	for _, g := range sources(t, "internal/api", false, false) {
		for _, p := range imports(g.file) {
			if p == module+"internal/store" {
				t.Errorf("%s imports internal/store: take the type from the area that returns it", g.path)
			}
		}
	}
}
