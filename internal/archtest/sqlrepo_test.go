package archtest

import (
	"go/ast"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// SQL lives in repositories (issue 31): the store (the shared layer and
// the migrations), and each area's repository files, named repo*.go or
// *_repo.go, beside its service or in its leaf package (agentrow…). A service, a handler or a job reads and writes through them,
// so a reader finds every query of an area in a few files. Test files and
// the test-support packages (names ending in "test") may query anything.
func TestSQLOnlyInRepositories(t *testing.T) {
	dml := regexp.MustCompile(`(?is)\bSELECT\b.+\bFROM\b|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b`)
	for _, dir := range []string{"internal", "cmd"} {
		for _, g := range sources(t, dir, true, false) {
			slashed := filepath.ToSlash(g.path)
			base := path.Base(slashed)
			if strings.HasPrefix(slashed, "internal/store/") && !strings.HasPrefix(slashed, "internal/store/storetest/") ||
				strings.HasPrefix(base, "repo") || strings.HasSuffix(base, "_repo.go") ||
				strings.HasSuffix(path.Base(path.Dir(slashed)), "test") {
				continue
			}
			stringLiterals(g, func(lit *ast.BasicLit, s string) {
				if dml.MatchString(s) {
					t.Errorf("%s: SQL outside a repository (%q): move it to the area's repo*.go",
						g.fset.Position(lit.Pos()), strings.Join(strings.Fields(dml.FindString(s)), " "))
				}
			})
		}
	}
}
