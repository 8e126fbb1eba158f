// Package archtest holds tests that keep the code base's structure: which
// package may import which, and which shortcuts around the area services
// stay closed. They read the source tree with go/parser, so they need
// nothing outside the standard library.
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentry/agentry/"

// root is the repository root (this package is internal/archtest).
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s: %v", r, err)
	}
	return r
}

// goFile is one parsed source file.
type goFile struct {
	path string // relative to the repository root
	file *ast.File
	fset *token.FileSet
}

// sources parses the Go files under dir (relative to the root), walking
// subdirectories when deep; tests when withTests.
func sources(t *testing.T, dir string, deep, withTests bool) []goFile {
	t.Helper()
	r := root(t)
	var out []goFile
	err := filepath.WalkDir(filepath.Join(r, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != filepath.Join(r, dir) && (!deep || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || (!withTests && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r, p)
		out = append(out, goFile{path: filepath.ToSlash(rel), file: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no Go files under %s", dir)
	}
	return out
}

func imports(f *ast.File) []string {
	var out []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}

// The model layer (llm and its adapters) speaks to providers; prices and
// which provider serves which catalog model belong to billing and
// models/routing, so llm must not depend on the catalog.
func TestLLMDoesNotImportCatalog(t *testing.T) {
	for _, g := range sources(t, "internal/llm", true, true) {
		for _, p := range imports(g.file) {
			if p == module+"internal/models/catalog" || strings.HasPrefix(p, module+"internal/models/") {
				t.Errorf("%s imports %s", g.path, p)
			}
		}
	}
}

// Tools are a field of engine.Engine (Engine.Tools), registered on the
// engine the server assembles: no package-level registry that every engine
// in the process would share.
func TestEngineHasNoGlobalToolRegistry(t *testing.T) {
	for _, g := range sources(t, "internal/engine", false, false) {
		for _, d := range g.file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "RegisterTool" {
					t.Errorf("%s: package-level func RegisterTool", g.path)
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, sp := range d.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if isToolRegistry(vs, i) {
							t.Errorf("%s: package-level tool registry var %s", g.path, n.Name)
						}
					}
				}
			}
		}
	}
}

// isToolRegistry reports whether the i-th name of a var spec holds Tools
// (declared by type or built by a literal).
func isToolRegistry(vs *ast.ValueSpec, i int) bool {
	mentions := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (id.Name == "Tools" || id.Name == "Tool") {
				found = true
			}
			return !found
		})
		return found
	}
	if vs.Type != nil && mentions(vs.Type) {
		return true
	}
	return i < len(vs.Values) && mentions(vs.Values[i])
}

// Handlers reach the database only through the area services: nothing in
// the API package (outside its tests) names a *store.DB dependency.
func TestAPIHandlersDoNotReachTheDatabase(t *testing.T) {
	for _, g := range sources(t, "internal/api", false, false) {
		ast.Inspect(g.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if n.Sel.Name == "DB" {
					if x, ok := n.X.(*ast.SelectorExpr); ok && x.Sel.Name == "deps" {
						t.Errorf("%s: %s uses deps.DB", g.path, g.fset.Position(n.Pos()))
					}
				}
			case *ast.StarExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "DB" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "store" {
						t.Errorf("%s: %s holds a *store.DB", g.path, g.fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
	}
}

// The API's operations are listed in one route table, routes() in api.go;
// area files hold the handlers only (registerUploadInput, which finishes
// the upload operation's multipart schema, is the one helper allowed to
// call register for the table).
func TestOneRouteTable(t *testing.T) {
	for _, g := range sources(t, "internal/api", false, false) {
		for _, d := range g.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			allowed := (g.path == "internal/api/api.go" && fn.Name.Name == "routes") || fn.Name.Name == "registerUploadInput"
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				name := ""
				switch f := call.Fun.(type) {
				case *ast.Ident:
					name = f.Name
				case *ast.IndexListExpr:
					if id, ok := f.X.(*ast.Ident); ok {
						name = id.Name
					}
				case *ast.SelectorExpr:
					if id, ok := f.X.(*ast.Ident); ok && id.Name == "huma" && f.Sel.Name == "Register" {
						name = "huma.Register"
					}
				}
				if (name == "register" || name == "huma.Register") && !allowed && fn.Name.Name != "register" {
					t.Errorf("%s: %s registers an operation outside the route table in api.go", g.fset.Position(call.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
}

// Operator commands get their services from server assembly
// (server.Operator), not a partial runs service of their own that would
// miss the engine, models or queue serve wires in.
func TestAdminDoesNotBuildARunsService(t *testing.T) {
	for _, g := range sources(t, "internal/admin", false, false) {
		ast.Inspect(g.file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "New" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "runs" {
						t.Errorf("%s: builds a runs service (runs.New)", g.fset.Position(call.Pos()))
					}
				}
			}
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Service" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "runs" {
					t.Errorf("%s: builds a runs.Service literal", g.fset.Position(lit.Pos()))
				}
			}
			return true
		})
	}
}

// The public client is a module of its own that users import without the
// server: nothing under client/, tests included, imports a package of the
// server's module (internal/ or any other), and its go.mod does not
// require the server's module, so `go get` of the client brings none of
// the server's dependencies.
func TestClientIsItsOwnModule(t *testing.T) {
	const clientModule = module + "client"
	mod, err := os.ReadFile(filepath.Join(root(t), "client", "go.mod"))
	if err != nil {
		t.Fatalf("client/ has no go.mod of its own: %v", err)
	}
	lines := strings.Split(string(mod), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "module "+clientModule {
		t.Errorf("client/go.mod declares %q, want module %s", lines[0], clientModule)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == strings.TrimSuffix(module, "/") || (f[0] == "require" && len(f) > 1 && f[1] == strings.TrimSuffix(module, "/"))) {
			t.Errorf("client/go.mod requires the server's module: %q", l)
		}
	}
	for _, g := range sources(t, "client", true, true) {
		for _, p := range imports(g.file) {
			if (p == strings.TrimSuffix(module, "/") || strings.HasPrefix(p, module)) && p != clientModule && !strings.HasPrefix(p, clientModule+"/") {
				t.Errorf("%s imports %s, outside the client module", g.path, p)
			}
		}
	}
}

// TestPackageNamesAreUnique keeps every package under internal/ named
// differently from every other, so that no import needs an alias to tell
// two apart (there were two "alerts" and two "outbound" once).
func TestPackageNamesAreUnique(t *testing.T) {
	dirOf := map[string]string{}
	for _, f := range sources(t, "internal", true, false) {
		name, dir := f.file.Name.Name, filepath.Dir(f.path)
		if prev, ok := dirOf[name]; ok && prev != dir {
			t.Errorf("package %q is both %s and %s: rename one", name, prev, dir)
			continue
		}
		dirOf[name] = dir
	}
}

// The web console is a client of the API: its pages read and act only
// through the API. It keeps its own sessions and sign-in links
// (session_repo.go, on the store's pools), and its database handle
// otherwise only resolves a pasted key's user, for "sign out everywhere";
// any other store method named in internal/web fails here.
func TestConsoleReadsNoResourceFromTheStore(t *testing.T) {
	allowed := map[string]bool{"APIKeyByHash": true}
	files := sources(t, "internal/web", true, false)
	if len(files) == 0 {
		t.Fatal("no console sources found")
	}
	for _, g := range files {
		ast.Inspect(g.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var holder string
			switch x := sel.X.(type) {
			case *ast.Ident:
				holder = x.Name
			case *ast.SelectorExpr:
				holder = x.Sel.Name
			}
			if holder == "db" && !allowed[sel.Sel.Name] {
				t.Errorf("%s: the console calls the store's %s: read resources through the API instead", g.fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// The page-to-offset arithmetic lives once, in internal/paging, which also
// guards it against overflow. It was written out by hand 22 times; any
// (page-1)*limit or (total+limit-1)/limit outside that package (told apart
// from other arithmetic by an operand named like a page or a limit) fails
// here, so it does not come back.
func TestPageArithmeticOnlyInPaging(t *testing.T) {
	// named reports whether e is an identifier or field whose name holds
	// one of words.
	named := func(e ast.Expr, words ...string) bool {
		var name string
		switch x := e.(type) {
		case *ast.Ident:
			name = x.Name
		case *ast.SelectorExpr:
			name = x.Sel.Name
		default:
			return false
		}
		name = strings.ToLower(name)
		for _, w := range words {
			if strings.Contains(name, w) {
				return true
			}
		}
		return false
	}
	// minusOne answers x for (x - 1), else nil; (total + limit - 1) parses
	// as ((total + limit) - 1).
	minusOne := func(e ast.Expr) ast.Expr {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return nil
		}
		b, ok := p.X.(*ast.BinaryExpr)
		if !ok || b.Op != token.SUB {
			return nil
		}
		if lit, ok := b.Y.(*ast.BasicLit); !ok || lit.Value != "1" {
			return nil
		}
		return b.X
	}
	var files []goFile
	for _, dir := range []string{"internal", "cmd"} {
		files = append(files, sources(t, dir, true, false)...)
	}
	for _, g := range files {
		if strings.HasPrefix(g.path, "internal/paging/") {
			continue
		}
		ast.Inspect(g.file, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok {
				return true
			}
			var bad bool
			switch b.Op {
			case token.MUL: // (page - 1) * limit
				for _, side := range []ast.Expr{b.X, b.Y} {
					if x := minusOne(side); x != nil && named(x, "page") {
						bad = true
					}
				}
			case token.QUO: // (total + limit - 1) / limit
				sum, ok := minusOne(b.X).(*ast.BinaryExpr)
				bad = ok && sum.Op == token.ADD && named(b.Y, "limit", "page")
			}
			if bad {
				t.Errorf("%s: page arithmetic written out by hand; use paging.Offset / paging.Pages", g.fset.Position(b.Pos()))
			}
			return true
		})
	}
}

// Roles are declared beside each operation in the route table and enforced
// in one place (internal/api/roles.go); a handler checking CanAdminister
// itself would be a second, drifting copy. reviews.go keeps the one
// row-level use: who may decide a review depends on the review.
func TestRolesOnlyInTheRouteTable(t *testing.T) {
	allowed := map[string]bool{"roles.go": true, "reviews.go": true}
	for _, g := range sources(t, "internal/api", false, false) {
		if allowed[filepath.Base(g.path)] {
			continue
		}
		ast.Inspect(g.file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "CanAdminister" {
				t.Errorf("%s: %s checks the role in a handler; declare it in the route table (admin(op, …))", g.path, g.fset.Position(n.Pos()))
			}
			return true
		})
	}
}

// stringLiterals calls fn with every string literal of a file.
func stringLiterals(g goFile, fn func(lit *ast.BasicLit, s string)) {
	ast.Inspect(g.file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				fn(lit, s)
			}
		}
		return true
	})
}

// Schema changes live in the migrations (internal/store/migrations), which
// migrate.go applies. The exceptions, each for a reason:
//   - internal/store/migrate.go runs the migrations (and moves SQLite's
//     results table into its own file);
//   - internal/store/storetest installs pgvector for the test databases;
//   - internal/knowledge/pgvector_repo.go: the vector table needs the vector
//     type, which exists only once the extension is installed (possibly
//     after the migrations ran), and an HNSW index needs fixed dimensions,
//     so there is one partial index per vector size the sources use, known
//     only at run time.
func TestDDLOnlyInMigrations(t *testing.T) {
	allowed := map[string]bool{
		"internal/store/migrate.go":            true,
		"internal/store/storetest/template.go": true,
		"internal/knowledge/pgvector_repo.go":  true,
	}
	ddl := regexp.MustCompile(`(?i)\b(CREATE|ALTER|DROP)\s+(TABLE|INDEX|UNIQUE\s+INDEX|EXTENSION|VIRTUAL\s+TABLE|VIEW|TRIGGER)\b`)
	for _, dir := range []string{"internal", "cmd"} {
		for _, g := range sources(t, dir, true, false) {
			if allowed[g.path] {
				continue
			}
			stringLiterals(g, func(lit *ast.BasicLit, s string) {
				if ddl.MatchString(s) {
					t.Errorf("%s: DDL outside the migrations: %q", g.fset.Position(lit.Pos()), ddl.FindString(s))
				}
			})
		}
	}
}

// An area that keeps its own persistence (its repository beside its
// service, issue 31's vertical slices) is the only code that names its
// tables: other areas reach its data through its service or its leaf
// package (agentrow, runrow…), and the store keeps only what is shared.
// Tests may name any table (to seed or tamper), and so may the migrations
// (migrationFiles). An area joins this list when its SQL moves out of
// internal/store.
var tablesOwnedByArea = map[string][]string{
	"internal/secrets":      {"account_secrets"},
	"internal/mail/dmarc":   {"dmarc_reports", "dmarc_records"},
	"internal/mcpexpose":    {"agent_mcp_tools"},
	"internal/governance":   {"governance_policies", "governance_conversations", "governance_violations"},
	"internal/mail/sending": {"mail_optouts", "mail_messages", "mail_deliveries"},
	"internal/mail/domains": {"email_domains"},
	"internal/mail/inbound": {"inbound_emails", "email_trigger_configs"},
	"internal/mail/protect": {"email_blocked_senders", "inbound_email_rejections", "inbound_email_state"},

	"internal/alerts": {"alerts", "alert_history", "alert_comments", "alert_subscribers", "alert_preferences", "alert_configs",
		"alert_default_configs", "alert_run_marks", "alert_source_pulls", "alert_deliveries"},

	// The knowledge area and its exports. The solutions area asks about
	// the knowledge bases and sources it links (live ones, their names)
	// and the account search finds all three tables through the area's
	// leaf package, internal/knowledge/knowledgerow.
	"internal/knowledge": {"knowledge_bases", "sources", "contents", "embedding_migrations", "embedding_migration_vectors", "knowledge_base_sources", "source_urls",
		"content_attachments", "kb_chunks", "kb_chunk_vectors"},
	"internal/knowledge/exports": {"source_exports"},
	"internal/web":               {"console_sessions", "console_signin_links"},
	"internal/jobs":              {"job_pings", "river_job"},
	"internal/events":            {"events", "event_streams"},

	// The memory area: banks, entries, the stats totals, the assistant.
	"internal/memory": {"memory_banks", "memory_entries", "memory_stat_tokens", "memory_stat_keys", "memory_stat_labels", "memory_assistant_turns"},

	// The evaluations area. An agent's import and export write and read
	// its criteria in the agent's transaction, and the account search
	// finds criteria, through the area's leaf package,
	// internal/evals/evalrow; the runs area's runrow.ResultRuns groups
	// results by run in one statement over the table evalrow names
	// (evalrow.Results). The store's migrate.go moves SQLite's results into
	// their own file: a migration (see migrationFiles).
	"internal/evals": {"criteria_deletions", "evaluation_criteria", "evaluation_results"},

	// The model lifecycle's alerts, upgrades and rollback signals.
	"internal/models/modelalerts": {"model_alerts", "model_upgrades", "model_signals"},

	"internal/playground": {"playground_experiments"},

	// The API keys, beside the authenticator.
	"internal/auth": {"api_keys"},

	// The accounts area's repository. Other areas ask it (repo_asked.go):
	// the authenticator a key's account kind and member role, the alerts
	// their people, outbound mail the first owner's address, the model
	// defaults the account's default model, billing the balance on the
	// account's row; bounded creates lock the row (LockAccount).
	"internal/accounts/directory": {"accounts", "users", "memberships"},

	// The runs area: its runs and their step attempts, the reviews
	// human_in_the_loop steps ask for, a run's attempts and its files.
	// The areas that read runs (the alerts' detectors, the evaluations and
	// the judgments journaled on run_steps, inbound mail's parked runs and
	// quota, the model rollback rules, the account search) and storetest's
	// seeding at scale ask the runs area's leaf package,
	// internal/runs/runrow, which takes their querier or transaction.
	"internal/runs": {"runs", "run_steps", "run_reviews", "run_attempts", "run_attachments"},

	"internal/regressions": {"regression_items", "regressions"},

	// The agents area: its agents, their triggers and schedules, its input
	// uploads, the agents a definition calls and the definitions a save
	// replaced. Other areas ask about an agent (is it live in this account,
	// its name, its trigger; the runs scheduler's due schedules) through
	// the area's leaf package, internal/agents/agentrow, inside their own
	// transactions where the question belongs to a write, and evals and
	// governance bump agents.oversight_rev through agentrow.BumpOversight;
	// the account search finds agents through agentrow.Search.
	"internal/agents": {"agents", "agent_triggers", "trigger_schedules", "agent_input_uploads", "agent_calls", "agent_definition_history"},

	// The metered model calls and the credit ledger. The accounts area
	// records a new account's opening balance, and the alerts area reads
	// spending, through the area's leaf package, internal/billing/ledgerrow.
	"internal/billing": {"model_usage", "credit_ledger"},

	// The solutions area and its assistants. The agents area's import
	// links the new agent to solutions in its own transaction, its export
	// names an agent's solutions, and the account search finds them,
	// through the area's leaf package, internal/solutions/solutionrow.
	"internal/solutions": {"solutions", "solution_agents", "solution_knowledge_bases", "solution_sources", "assistant_conversations", "agent_assistant_turns", "assistant_feedback"},
}

// sqlNamesTable answers a matcher of SQL that names table: right after
// FROM (DELETE FROM included, and the later items of a FROM list), JOIN,
// INTO, UPDATE, TABLE, USING or REFERENCES, case-insensitively, the name
// possibly qualified by a schema and quoted. Only SQL counts: the alerts
// area's table names are words of its messages, routes (/alerts) and docs,
// and an agent definition's JSON key governance_policies is no table.
func sqlNamesTable(table string) *regexp.Regexp {
	q := "[\"`]?"
	name := `(?:` + q + `\w+` + q + `\.)?` + q + regexp.QuoteMeta(table) + q + `(?:\W|$)`
	lead := `(?:ONLY\s+|IF\s+(?:NOT\s+)?EXISTS\s+)?`
	// A FROM list's earlier items: a name, an optional alias, a comma.
	list := `(?:[\w."` + "`" + `]+(?:\s+(?:AS\s+)?\w+)?\s*,\s*)*`
	return regexp.MustCompile(`(?is)(?:\bFROM\s+` + lead + list + `|\b(?:JOIN|INTO|UPDATE|TABLE|USING|REFERENCES)\s+` + lead + `)` + name)
}

// stringConstants maps the package-level string constants of the files of
// one directory to their values, so that SQL put together from a constant
// ("FROM " + table) is read whole.
func stringConstants(files []goFile) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, g := range files {
		dir := filepath.Dir(g.path)
		if out[dir] == nil {
			out[dir] = map[string]string{}
		}
		for _, d := range g.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if v, err := strconv.Unquote(lit.Value); err == nil {
							out[dir][n.Name] = v
						}
					}
				}
			}
		}
	}
	return out
}

// sqlTexts calls fn with every string literal of a file and with every
// concatenation (a + b + ...) of literals and the package's string
// constants, other operands read as a placeholder.
func sqlTexts(g goFile, consts map[string]string, fn func(pos token.Pos, s string)) {
	stringLiterals(g, func(lit *ast.BasicLit, s string) { fn(lit.Pos(), s) })
	inner := map[ast.Node]bool{}
	ast.Inspect(g.file, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD || inner[b] {
			return true
		}
		var sb strings.Builder
		var walk func(e ast.Expr)
		walk = func(e ast.Expr) {
			switch x := e.(type) {
			case *ast.BinaryExpr:
				if x.Op == token.ADD {
					inner[x] = true
					walk(x.X)
					walk(x.Y)
					return
				}
			case *ast.ParenExpr:
				walk(x.X)
				return
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING {
					sb.WriteString(s)
					return
				}
			case *ast.Ident:
				if v, ok := consts[x.Name]; ok {
					sb.WriteString(v)
					return
				}
			}
			sb.WriteString(" ? ")
		}
		walk(b)
		fn(b.Pos(), sb.String())
		return true
	})
}

// migrationFiles are the Go files that change the schema and move data
// between its versions, whichever area's tables: internal/store/migrate.go
// applies the migrations and moves SQLite's evaluation results into
// their own file.
var migrationFiles = map[string]bool{"internal/store/migrate.go": true}

func TestAreasOwnTheirTables(t *testing.T) {
	var files []goFile
	for _, dir := range []string{"internal", "cmd"} {
		for _, g := range sources(t, dir, true, false) {
			if !migrationFiles[g.path] {
				files = append(files, g)
			}
		}
	}
	consts := stringConstants(files)
	for area, tables := range tablesOwnedByArea {
		pats := make([]*regexp.Regexp, len(tables))
		for i, tb := range tables {
			pats[i] = sqlNamesTable(tb)
		}
		for _, g := range files {
			if strings.HasPrefix(g.path, area+"/") {
				continue
			}
			// A literal is also part of its concatenation: one report a place.
			seen := map[string]bool{}
			sqlTexts(g, consts[filepath.Dir(g.path)], func(pos token.Pos, s string) {
				for i, p := range pats {
					at := g.fset.Position(pos)
					key := at.String() + " " + tables[i]
					if p.MatchString(s) && !seen[key] {
						seen[key] = true
						t.Errorf("%s: names %s, which only %s reads and writes", at, tables[i], area)
					}
				}
			})
		}
	}
}

// TestSQLNamesTable keeps the matcher of TestAreasOwnTheirTables honest:
// every way SQL names a table is caught, the same word outside SQL is not.
func TestSQLNamesTable(t *testing.T) {
	p := sqlNamesTable("alerts")
	for _, s := range []string{
		`SELECT id FROM alerts WHERE id = $1`,
		`select id from alerts`,
		"SELECT COUNT(*)\n\t\tFROM\talerts a",
		`DELETE FROM alerts WHERE created_at < $1`,
		`INSERT INTO alerts (id) VALUES ($1)`,
		`INSERT OR IGNORE INTO "alerts" (id) VALUES ($1)`,
		`UPDATE alerts SET status = $1`,
		`UPDATE ONLY public.alerts SET status = $1`,
		`SELECT 1 FROM accounts a JOIN alerts b ON b.account_id = a.id`,
		`SELECT 1 FROM accounts a LEFT JOIN public."alerts" b ON true`,
		`SELECT 1 FROM accounts a, alerts b WHERE b.account_id = a.id`,
		`SELECT 1 FROM accounts AS a, users u, alerts`,
		`DELETE FROM runs USING alerts WHERE alerts.id = runs.id`,
		`ALTER TABLE alerts ADD COLUMN x TEXT`,
		`DROP TABLE IF EXISTS alerts`,
		`TRUNCATE TABLE alerts`,
		`FOREIGN KEY (alert_id) REFERENCES alerts(id)`,
		"SELECT id FROM `alerts`",
		`SELECT id FROM alerts`,
	} {
		if !p.MatchString(s) {
			t.Errorf("missed: %q", s)
		}
	}
	for _, s := range []string{
		`alerts`,
		`/alerts/{alert_id}`,
		`json:"alerts"`,
		`List the account's alerts, newest first.`,
		`SELECT id FROM model_alerts`,
		`SELECT id FROM alerts_archive`,
		`UPDATE alert_configs SET enabled = $1`,
		`SELECT alerts.id, x FROM runs`,
		`Alerts raised when a run fails.`,
	} {
		if p.MatchString(s) {
			t.Errorf("matched outside SQL: %q", s)
		}
	}
	// A table named through a constant is read with it.
	g := goFile{path: "x/x.go", fset: token.NewFileSet()}
	f, err := parser.ParseFile(g.fset, "x.go", "package x\nconst tb = \"alerts\"\nvar q = `DELETE FROM ` + tb + ` WHERE id = $1`\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	g.file = f
	found := false
	sqlTexts(g, stringConstants([]goFile{g})["x"], func(_ token.Pos, s string) { found = found || p.MatchString(s) })
	if !found {
		t.Error("missed a table named through a constant")
	}
}
