package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDocsNameRealCommands: every `agentry …` command line that README.md
// and docs/*.md show (in code blocks and inline code) names commands that
// exist and flags those commands take, and every flag a page names on its
// own (`--base-url`) is a flag of some command. Pages used to name flags
// that never existed (mcp.md's --api-url).
func TestDocsNameRealCommands(t *testing.T) {
	root := newRoot()
	allFlags := map[string]bool{}
	walk(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { allFlags[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { allFlags[f.Name] = true })
	})
	allFlags["help"], allFlags["version"] = true, true

	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md")
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../../")
		for _, ref := range commandRefs(string(b)) {
			checked++
			if msg := checkCommand(root, ref.text); msg != "" {
				t.Errorf("%s:%d: `%s`: %s", name, ref.line, ref.text, msg)
			}
		}
		for _, ref := range flagRefs(string(b)) {
			if !allFlags[ref.text] && !otherToolFlags[ref.text] {
				t.Errorf("%s:%d: --%s is no flag of any agentry command", name, ref.line, ref.text)
			}
		}
	}
	t.Logf("%d command lines checked", checked)
	if checked < 100 {
		t.Fatalf("only %d command lines found in the docs: the scanner is broken", checked)
	}
}

// otherToolFlags are flags the pages name for other programs (curl, go
// test, docker, psql, ollama…), never as agentry's.
var otherToolFlags = map[string]bool{
	"n-jobs-per-worker": true, // the peer's dev server (performance.md)
}

type ref struct {
	text string
	line int
}

var (
	inlineCode = regexp.MustCompile("`([^`]+)`")
	agentryCmd = regexp.MustCompile(`(?:^|[\s(])(?:go run \./cmd/agentry|(?:\S*/)?agentry)((?:\s|$).*)`)
	loneFlag   = regexp.MustCompile(`^--([a-z][a-z0-9-]*)(?:[ =].*)?$`)
)

// commandRefs finds agentry command lines: lines of fenced code blocks and
// inline code spans that run agentry. Continued lines (ending in \) are
// joined; shell comments and pipes end a command.
func commandRefs(doc string) []ref {
	var out []ref
	lines := strings.Split(doc, "\n")
	inBlock := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			start := i
			for strings.HasSuffix(strings.TrimSpace(l), "\\") && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(strings.TrimSpace(l), "\\") + " " + strings.TrimSpace(lines[i])
			}
			if cmd, ok := agentryCommand(l); ok {
				out = append(out, ref{cmd, start + 1})
			}
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(l, -1) {
			if strings.HasPrefix(m[1], "agentry ") || strings.HasPrefix(m[1], "go run ./cmd/agentry ") {
				if cmd, ok := agentryCommand(m[1]); ok {
					out = append(out, ref{cmd, i + 1})
				}
			}
		}
	}
	return out
}

// agentryCommand returns the words after "agentry" on a shell line, up to a
// comment, pipe, redirection or command separator.
func agentryCommand(line string) (string, bool) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
		return "", false
	}
	m := agentryCmd.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	// What precedes agentry must be a shell line's start: variables, sudo,
	// exec, or nothing (so "the agentry binary" in prose is not a command).
	before := strings.TrimSpace(line[:strings.Index(line, m[0])+len(m[0])-len(m[1])])
	before = strings.TrimSuffix(strings.TrimSuffix(before, "agentry"), "go run ./cmd/agentry")
	for _, w := range strings.Fields(before) {
		if !strings.Contains(w, "=") && w != "sudo" && w != "exec" && !strings.HasSuffix(w, "/") {
			return "", false
		}
	}
	rest := m[1]
	for _, stop := range []string{" #", " |", " >", " <", " &&", " ;", " 2>"} {
		if i := strings.Index(rest, stop); i >= 0 {
			rest = rest[:i]
		}
	}
	return strings.Join(strings.Fields(rest), " "), true
}

// checkCommand walks root along the words of cmd and checks its flags.
func checkCommand(root *cobra.Command, cmd string) string {
	words := strings.Fields(cmd)
	c := root
	i := 0
	for ; i < len(words); i++ {
		w := strings.Trim(words[i], "'\"")
		if strings.HasPrefix(w, "-") {
			break
		}
		alts := strings.Split(strings.ReplaceAll(w, `\|`, "|"), "|")
		if len(alts) > 1 && c.HasSubCommands() {
			// "list|get|create": each must be a subcommand here.
			for _, a := range alts {
				if sub := find(c, a); sub == nil {
					return "no command " + c.CommandPath() + " " + a
				}
			}
			return ""
		}
		sub := find(c, w)
		if sub == nil {
			if c.HasSubCommands() && !c.Runnable() && !placeholder(w) {
				return "no command " + c.CommandPath() + " " + w
			}
			break // an argument
		}
		c = sub
	}
	for ; i < len(words); i++ {
		w := strings.Trim(words[i], "'\"")
		switch {
		case strings.HasPrefix(w, "--"):
			name := strings.SplitN(strings.TrimPrefix(w, "--"), "=", 2)[0]
			if name == "" || strings.ContainsAny(name, "…<[") {
				continue
			}
			if c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil && name != "help" && name != "version" {
				return c.CommandPath() + " has no flag --" + name
			}
		case len(w) == 2 && w[0] == '-' && w[1] != '-':
			if c.Flags().ShorthandLookup(w[1:]) == nil && c.InheritedFlags().ShorthandLookup(w[1:]) == nil && w != "-h" {
				return c.CommandPath() + " has no flag " + w
			}
		}
	}
	return ""
}

// placeholder reports whether w stands for a value (AGENT_ID, <id>, …).
func placeholder(w string) bool {
	return w == strings.ToUpper(w) || strings.ContainsAny(w, "<>[]…{}.:/=@0123456789\"'")
}

func find(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// flagRefs finds flags named alone in inline code outside code blocks:
// `--base-url`, `--smtp-addr :2525`.
func flagRefs(doc string) []ref {
	var out []ref
	inBlock := false
	for i, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(l, -1) {
			if f := loneFlag.FindStringSubmatch(m[1]); f != nil {
				out = append(out, ref{f[1], i + 1})
			}
		}
	}
	return out
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	cmds := c.Commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	for _, s := range cmds {
		walk(s, fn)
	}
}

// TestDocsScannerCatchesMistakes: the scanner finds commands in code
// blocks and inline code, and refuses a misspelt command or flag.
func TestDocsScannerCatchesMistakes(t *testing.T) {
	root := newRoot()
	for cmd, bad := range map[string]bool{
		"serve --smtp-addr :2525":                     false,
		"models default set openai_gpt_4_1":           false,
		"runs stream AGENT_ID --input \"hi\" -o json": false,
		"agents list\\|get\\|create":                  false,
		"mcp --api-url http://x":                      true,
		"models lst":                                  true,
		"agents list\\|fetch":                         true,
		"evals results list --agent-idd X":            true,
		"kb search KB_ID hello -x":                    true,
	} {
		if got := checkCommand(root, cmd) != ""; got != bad {
			t.Errorf("checkCommand(%q) refused=%v, want %v", cmd, got, bad)
		}
	}
	doc := "Run `agentry me` then\n\n```sh\nSERVICE_API_KEY=k agentry runs list \\\n  --agent X | jq .\n# agentry nothing\n```\nthe agentry binary `--base-url`\n"
	refs := commandRefs(doc)
	if len(refs) != 2 || refs[0].text != "me" || refs[1].text != "runs list --agent X" {
		t.Fatalf("refs %+v", refs)
	}
	if f := flagRefs(doc); len(f) != 1 || f[0].text != "base-url" {
		t.Fatalf("flags %+v", f)
	}
}
