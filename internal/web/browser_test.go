package web_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// The browser tests drive Debian's chromium, headless. Outside CI they
// skip when it is not installed (saying so); under CI (.ci/run sets CI=1
// and installs chromium) a missing browser fails them.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but no chromium is installed (apt-get install -y chromium)")
	}
	t.Skip("browser test skipped: chromium is not installed (apt-get install -y chromium); CI runs it")
	return ""
}

// screenshotDir is where screenshots go: docs/console when
// UPDATE_SCREENSHOTS=1 (to refresh the docs' images), else a temporary
// directory (they are still taken, so the step is exercised).
func screenshotDir(t *testing.T) string {
	if os.Getenv("UPDATE_SCREENSHOTS") != "" {
		dir := filepath.Join("..", "..", "docs", "console")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// browserContext is a headless chromium tab at width × height.
func browserContext(t *testing.T, exe string, width, height int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.WindowSize(width, height),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("force-color-profile", "srgb"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	// The first run starts the browser, for the context's whole life: no
	// deadline on it (chromedp's rule); each step below has its own.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// stepTimeout bounds one group of browser steps.
const stepTimeout = 30 * time.Second

// do runs steps with a deadline; on failure it shows where the browser is.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		where, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("%s: %v\nthe browser shows:\n%s", what, err, where)
	}
}

func shoot(dir, name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		png, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.Void{}, os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
}

// css is a CSS selector (plain strings are chromedp's text search).
type css = chromedp.CSS

// run runs an action that returns a value.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBrowserSigninCreateAndValidate signs in with the first start's
// one-time link, creates an agent from a template, and sees a validation
// error at its line in the workflow editor — with the CSP in force, so the
// scripts that run are the console's own files.
func TestBrowserSigninCreateAndValidate(t *testing.T) {
	exe := chromium(t)
	var out bytes.Buffer
	srv := testserver.StartPrinting(t, store.SQLite, &out)
	m := linkPattern.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no sign-in link printed:\n%s", out.String())
	}
	shots := screenshotDir(t)
	ctx := browserContext(t, exe, 1280, 900)

	do(t, ctx, "sign in with the link",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		shoot(shots, "signin.png"),
		chromedp.Navigate(srv.URL+m[1]),
		chromedp.WaitVisible(css(`form[action="/console/signin/link"] button`)),
		chromedp.Click(css(`form[action="/console/signin/link"] button`)),
		// Signed in, the console opens on the overview; the agents are a click away.
		chromedp.WaitVisible(css(`nav.menu`)),
		chromedp.Navigate(srv.URL+"/console/agents"),
		chromedp.WaitVisible(css(`a[href="/console/agents/new"]`)),
	)
	title := run(t, ctx, chromedp.Title())
	htmxLoaded := run(t, ctx, chromedp.Evaluate[bool](`typeof window.htmx === "object"`))
	if !strings.HasPrefix(title, "Agents") || !htmxLoaded {
		t.Fatalf("after sign-in: title %q, htmx loaded %v", title, htmxLoaded)
	}

	// Create an agent from a template.
	do(t, ctx, "create from a template",
		chromedp.Click(css(`a[href="/console/agents/new"]`)),
		chromedp.WaitVisible(css(`#tpl-summarizer`)),
		shoot(shots, "new-agent.png"),
		chromedp.SendKeys(css(`#name`), "Meeting notes"),
		chromedp.Click(css(`#tpl-summarizer`)),
		chromedp.Submit(css(`#name`)),
		chromedp.WaitVisible(css(`#run`)),
		shoot(shots, "agent.png"),
	)
	if h1 := run(t, ctx, chromedp.Text(css(`h1`))); h1 != "Meeting notes" {
		t.Fatalf("agent page heading %q", h1)
	}
	agentPage := run(t, ctx, chromedp.Evaluate[string](`location.href`))

	// The list filters as one types (htmx, under the CSP): the page is not
	// reloaded, only its rows.
	do(t, ctx, "search the list",
		chromedp.Navigate(srv.URL+"/console/agents"),
		chromedp.WaitVisible(css(`main input[name=q]`)),
		chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`),
		chromedp.SendKeys(css(`main input[name=q]`), "zzz"),
		chromedp.WaitVisible(css(`#agent-rows p.card`)),
	)
	if still := run(t, ctx, chromedp.Evaluate[bool](`window.__sameDocument === true && location.search.includes("q=zzz")`)); !still {
		t.Fatal("the search reloaded the page instead of swapping the rows, or did not push its URL")
	}
	do(t, ctx, "back to the agent", chromedp.Navigate(agentPage), chromedp.WaitVisible(css(`#run`)))

	// A validation error, shown at its line; selecting it puts the caret there.
	bad := "{\n  \"name\": \"Meeting notes\",\n  \"child_steps\": [\n    {\"id\": \"x\", \"name\": \"X\", \"step_type\": \"teleport\"}\n  ]\n}"
	do(t, ctx, "open the workflow", chromedp.Click(css(`nav.tabs a[href$="/workflow"]`)))
	do(t, ctx, "the editor", chromedp.WaitVisible(css(`textarea[data-editor]`)))
	do(t, ctx, "the graph", chromedp.WaitVisible(css(`svg rect`)), shoot(shots, "workflow.png"))
	do(t, ctx, "type", chromedp.SetValue(css(`textarea[data-editor]`), bad))
	do(t, ctx, "save", chromedp.Click(css(`#workflow-form button[type=submit]`)))
	do(t, ctx, "the error", chromedp.WaitVisible(css(`.problems li.error[data-line]`)))
	do(t, ctx, "select the error", chromedp.Click(css(`.problems li.error[data-line]`)), shoot(shots, "workflow-error.png"))
	problem := run(t, ctx, chromedp.Text(css(`.problems li.error[data-line]`)))
	caret := run(t, ctx, chromedp.Evaluate[int](`document.querySelector("textarea[data-editor]").selectionStart`))
	text := run(t, ctx, chromedp.Value(css(`textarea[data-editor]`)))
	line := run(t, ctx, chromedp.Evaluate[int](`+document.querySelector(".problems li.error[data-line]").dataset.line`))
	col := run(t, ctx, chromedp.Evaluate[int](`+document.querySelector(".problems li.error[data-line]").dataset.column`))
	if !strings.Contains(problem, "line ") || !strings.Contains(problem, "teleport") {
		t.Fatalf("problem shown: %q", problem)
	}
	if got := lineOf(text, "teleport"); line != got {
		t.Fatalf("error at line %d; teleport is on line %d of\n%s", line, got, text)
	}
	lines := strings.Split(text, "\n")
	want := len(strings.Join(lines[:line-1], "\n")) + 1 + col - 1
	if caret != want {
		t.Fatalf("caret at %d after selecting the problem, want %d (line %d, column %d)", caret, want, line, col)
	}

	// Narrow screens: at 390 px wide no page scrolls sideways.
	small := browserContext(t, exe, 390, 844)
	do(t, small, "390 px",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
		chromedp.Navigate(srv.URL+"/console/agents"),
		chromedp.WaitVisible(css(`a[href="/console/agents/new"]`)),
		shoot(shots, "agents-390.png"),
	)
	agentURL := run(t, ctx, chromedp.Evaluate[string](`location.href.replace(/\/workflow$/, "")`))
	for _, u := range []string{srv.URL + "/console/agents", srv.URL + "/console/agents/new", agentURL, agentURL + "/workflow"} {
		do(t, small, "open "+u, chromedp.Navigate(u), chromedp.WaitVisible(css(`main h1`)))
		if w := run(t, small, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
			t.Errorf("%s is %d px wide at a 390 px viewport", u, w)
		}
	}
}
