package archtest

import (
	"go/ast"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// A package's testhooks.go exports what the suites of other packages need
// to seed or inspect it and no request can do (they cannot see its
// export_test.go). Those hooks skip the area's checks, so production code
// must never call them: only test files (and the test-support packages,
// whose names end in "test") may.
//
// The check reads names, not types: a non-test file is flagged when it
// imports the hook's package and calls a function or method of the hook's
// name on it (pkg.Hook(...) for a function, x.Hook(...) for a method).
func TestTestHooksOnlyInTests(t *testing.T) {
	type hook struct{ pkg, name, file string }
	var hooks []hook
	for _, g := range sources(t, "internal", true, false) {
		if filepath.Base(g.path) != "testhooks.go" {
			continue
		}
		for _, d := range g.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.IsExported() {
				hooks = append(hooks, hook{module + filepath.ToSlash(filepath.Dir(g.path)), fd.Name.Name, g.path})
			}
		}
	}
	if len(hooks) == 0 {
		t.Fatal("no testhooks.go found: has the convention moved?")
	}
	var files []goFile
	for _, dir := range []string{"internal", "cmd"} {
		files = append(files, sources(t, dir, true, false)...)
	}
	for _, g := range files {
		dir := filepath.ToSlash(filepath.Dir(g.path))
		if filepath.Base(g.path) == "testhooks.go" || strings.HasSuffix(path.Base(dir), "test") {
			continue
		}
		imported := map[string]bool{}
		for _, imp := range imports(g.file) {
			imported[imp] = true
		}
		ast.Inspect(g.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			for _, h := range hooks {
				if sel.Sel.Name != h.name || module+dir == h.pkg || !imported[h.pkg] {
					continue
				}
				t.Errorf("%s: calls %s.%s, a test hook (%s): production code goes through the area's checks",
					g.fset.Position(call.Pos()), path.Base(h.pkg), h.name, h.file)
			}
			return true
		})
	}
}
