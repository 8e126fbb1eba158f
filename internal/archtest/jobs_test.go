package archtest

import (
	"go/ast"
	"strings"
	"testing"
)

// A worker that sets its own Timeout or NextRetry must be listed in the
// server's OwnTimeoutKinds: the job rescue sweep cannot read either from
// outside River, and would rescue such a job before its own timeout, or
// retry it sooner than its own backoff. This test finds every such method
// (a Timeout or NextRetry taking *river.Job[XArgs]) and checks that the
// server lists the package's XArgs{}.Kind().
func TestOwnTimeoutWorkersAreListed(t *testing.T) {
	listed := map[string]bool{} // "alerts.DeliverArgs", from alerts.DeliverArgs{}.Kind()
	for _, g := range sources(t, "internal/server", false, false) {
		if strings.HasSuffix(g.path, "/server.go") {
			ast.Inspect(g.file, func(n ast.Node) bool {
				if kv, ok := n.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "OwnTimeoutKinds" {
						ast.Inspect(kv.Value, func(n ast.Node) bool {
							if lit, ok := n.(*ast.CompositeLit); ok {
								if sel, ok := lit.Type.(*ast.SelectorExpr); ok {
									if x, ok := sel.X.(*ast.Ident); ok {
										listed[x.Name+"."+sel.Sel.Name] = true
									}
								}
							}
							return true
						})
					}
				}
				return true
			})
		}
	}
	if len(listed) == 0 {
		t.Fatal("internal/server/server.go lists no OwnTimeoutKinds")
	}
	found := 0
	for _, g := range sources(t, "internal", true, false) {
		for _, d := range g.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || (fn.Name.Name != "Timeout" && fn.Name.Name != "NextRetry") || fn.Type.Params.NumFields() != 1 {
				continue
			}
			args := jobArgsOf(fn.Type.Params.List[0].Type)
			if args == "" {
				continue
			}
			found++
			if want := g.file.Name.Name + "." + args; !listed[want] {
				t.Errorf("%s: the worker of %s sets its own %s; add %s{}.Kind() to OwnTimeoutKinds in internal/server/server.go",
					g.fset.Position(fn.Pos()), args, fn.Name.Name, want)
			}
		}
	}
	if found == 0 {
		t.Fatal("no worker with its own Timeout or NextRetry found: the test reads nothing")
	}
}

// jobArgsOf is XArgs of a *river.Job[XArgs] parameter type, or "".
func jobArgsOf(e ast.Expr) string {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return ""
	}
	idx, ok := star.X.(*ast.IndexExpr)
	if !ok {
		return ""
	}
	sel, ok := idx.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Job" {
		return ""
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "river" {
		return ""
	}
	if id, ok := idx.Index.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
