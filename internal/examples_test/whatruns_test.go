package examplestest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

// between returns the text of doc from the line starting with from up to
// the next line starting with to.
func between(t *testing.T, doc, from, to string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+from)
	if i < 0 {
		t.Fatalf("no %q in the page", from)
	}
	rest := doc[i+1:]
	if j := strings.Index(rest, "\n"+to); j >= 0 {
		return rest[:j]
	}
	t.Fatalf("no %q after %q", to, from)
	return ""
}

var backticked = regexp.MustCompile("`([a-z0-9_]+)`")

// stepTypesIn lists the step types named in backticks in text.
func stepTypesIn(text string) map[string]bool {
	known := map[string]bool{}
	for _, st := range definition.StepTypes() {
		known[string(st)] = true
	}
	out := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(text, -1) {
		if known[m[1]] {
			out[m[1]] = true
		}
	}
	return out
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocumentedStepTypesMatchEngine keeps "What runs today" true: every
// step type the server's engine registers is listed as running in
// docs/agent-definitions.md, every one it lacks is listed as stored for
// later there and in the README, and none is in both. When an area lands
// and registers its steps, this fails until the docs say so.
func TestDocumentedStepTypesMatchEngine(t *testing.T) {
	s := testserver.Start(t, store.SQLite)
	reg := s.S.Runs.Engine.Registry

	section := between(t, readDoc(t, "../../docs/agent-definitions.md"), "## What runs today", "## Step reference")
	k := strings.Index(section, "Stored for later")
	if k < 0 {
		t.Fatal("the section has no 'Stored for later' list")
	}
	runsToday := stepTypesIn(section[:k])
	storedList := section[k:]
	if end := strings.Index(storedList, "\n\n"); end >= 0 {
		if next := strings.Index(storedList[end+2:], "\n\n"); next >= 0 {
			storedList = storedList[:end+2+next] // the list, not the prose after it
		}
	}
	stored := stepTypesIn(storedList)
	readme := between(t, readDoc(t, "../../README.md"), "## Stored for later", "The lists are kept")
	readmeSteps := between(t, readme, "- **Step types**", "- **Agent settings**")
	readmeStored := stepTypesIn(readmeSteps)

	for _, st := range definition.StepTypes() {
		name := string(st)
		_, registered := reg.Handler(st)
		switch {
		case runsToday[name] && stored[name]:
			t.Errorf("%s is listed both as running and as stored for later", name)
		case registered && !runsToday[name]:
			t.Errorf("%s runs: list it under What runs today in docs/agent-definitions.md (and take it out of Stored for later)", name)
		case !registered && !stored[name]:
			t.Errorf("%s does not run: list it under Stored for later in docs/agent-definitions.md", name)
		}
		if registered && readmeStored[name] {
			t.Errorf("%s runs, but the README lists it as stored for later", name)
		}
		if !registered && !readmeStored[name] {
			t.Errorf("%s does not run, but the README's Stored for later does not list it", name)
		}
	}
	// Every step type runs since the memory area landed: the stored list
	// may be empty, the running one never.
	if len(runsToday) == 0 {
		t.Fatalf("parsed nothing: runs %v, stored %v", runsToday, stored)
	}
}

// TestStoredSettingsAndTriggersAreNotActedOn keeps the other half of
// "Stored for later" true: the agent settings and triggers it names are
// read only by the packages that validate, store and transport them. Code
// elsewhere that names them (an evaluation area reading evaluation_mode, a
// mail area firing email_received) fails this test until the README and
// docs say what now acts on them, and the package is allowed here.
func TestStoredSettingsAndTriggersAreNotActedOn(t *testing.T) {
	stored := []string{"EvaluationMode", "DefaultEvaluationTier", "RetryOnFailure", "SamplingConfig"}
	// Packages that validate, store, export or transport them, and the
	// playground, whose EvaluationMode is its own (a playground setting).
	allowed := []string{"internal/agents", "internal/api", "internal/cli", "internal/store", "internal/testserver", "internal/playground", "client",
		"internal/evals", // evaluations act on the evaluation settings (README, docs/evaluations.md)
		"internal/web"}   // the console edits them through the API, as a client
	root := "../.."
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || slices.ContainsFunc(allowed, func(a string) bool { return rel == a || strings.HasPrefix(rel, a+"/") }) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(stored, sel.Sel.Name) {
				t.Errorf("%s names %s: if it now acts on it, say so in README.md (Stored for later) and docs/, then allow the package here",
					fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read only %d Go files", files)
	}
}
