package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// TestBrowserKnowledge drives the knowledge area in chromium, with the CSP
// in force: a source is created, a real PDF is uploaded through the file
// picker and a Markdown file dropped on the drop zone, each with its
// progress bar, and the contents list follows their indexing by itself
// (no reload) until they are searchable; the PDF's page shows its text;
// then a knowledge base is hit-tested, with an unsaved setting applied.
func TestBrowserKnowledge(t *testing.T) {
	exe := chromium(t)
	pdf, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "datasets", "pdfs", "shared-mime-info-spec.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.Start(t, store.SQLite)
	shots := screenshotDir(t)
	b := browserContext(t, exe, 1180, 860)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
	)
	do(t, b, "create a source",
		chromedp.Navigate(srv.URL+"/console/knowledge"),
		chromedp.WaitVisible(css(`#src-name`)),
		chromedp.SendKeys(css(`#src-name`), "Specifications"),
		chromedp.Submit(css(`#src-name`)),
		chromedp.WaitVisible(css(`.dropzone`)),
	)
	run(t, b, chromedp.Evaluate[bool](`(window.__notReloaded = true, true)`))
	do(t, b, "upload a PDF with the file picker",
		chromedp.SetUploadFiles(css(`#upload-files`), []string{pdf}),
		chromedp.WaitVisible(css(`.uploads li.done a`)),
	)
	// A file dropped on the zone (the drop event a user's drag makes).
	run(t, b, chromedp.Evaluate[bool](`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["# Glossary\n\nA glob pattern matches file names; magic rules match the first bytes."], "glossary.md", {type: "text/markdown"}));
		document.querySelector(".dropzone").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return true; })()`))
	run(t, b, chromedp.Poll[bool](`document.querySelectorAll(".uploads li.done").length === 2 || false`))
	if bar := run(t, b, chromedp.Evaluate[float64](`document.querySelector(".uploads li.done progress").value`)); bar != 100 {
		t.Fatalf("progress bar after the upload: %v", bar)
	}
	// The list follows the indexing by itself until both are searchable.
	run(t, b, chromedp.Poll[bool](`(() => { const rows = document.querySelectorAll("#contents tbody tr");
		return rows.length === 2 && [...rows].every(r => r.querySelector(".tag").textContent === "indexed") || false; })()`))
	if !run(t, b, chromedp.Evaluate[bool](`window.__notReloaded === true`)) {
		t.Fatal("the page reloaded instead of refreshing its list")
	}
	run(t, b, chromedp.Poll[bool](`!document.querySelector("#contents[hx-trigger]")`))
	do(t, b, "screenshot", shoot(shots, "knowledge-source.png"))

	do(t, b, "open the PDF",
		chromedp.Navigate(srv.URL+"/console/knowledge"),
		chromedp.WaitVisible(css(`#sources a`)),
		chromedp.Click(css(`#sources a`)),
		chromedp.WaitVisible(css(`#contents`)),
	)
	href := run(t, b, chromedp.Evaluate[string](`[...document.querySelectorAll("#contents tbody tr")].find(r => r.textContent.includes(".pdf")).querySelector("a").getAttribute("href")`))
	do(t, b, "PDF text", chromedp.Navigate(srv.URL+href), chromedp.WaitVisible(css(`pre.extracted`)))
	text := run(t, b, chromedp.Text(css(`pre.extracted`)))
	if !strings.Contains(text, "MIME") || !strings.Contains(text, "Shared MIME") {
		t.Fatalf("the PDF's extracted text: %.300q", text)
	}
	do(t, b, "screenshot", chromedp.WaitVisible(css(`ol.chunks li`)), shootView(shots, "knowledge-content.png"))

	do(t, b, "create a knowledge base",
		chromedp.Navigate(srv.URL+"/console/knowledge"),
		chromedp.Click(css(`#bases-h ~ details summary, section[aria-labelledby=bases-h] details summary`)),
		chromedp.WaitVisible(css(`#kb-name`)),
		chromedp.SendKeys(css(`#kb-name`), "Specs KB"),
		chromedp.Click(css(`input[name=source_id]`)),
		chromedp.Submit(css(`#kb-name`)),
		chromedp.WaitVisible(css(`#hit-test input[name=q]`)),
	)
	run(t, b, chromedp.Evaluate[bool](`(window.__notReloaded = true, true)`))
	do(t, b, "hit test",
		chromedp.SendKeys(css(`#hit-test input[name=q]`), "magic rules"),
		chromedp.Click(css(`#hit-test button[hx-post]`)),
		chromedp.WaitVisible(css(`#hits li.hit mark`)),
	)
	first := run(t, b, chromedp.Text(css(`#hits li.hit`)))
	if !strings.Contains(first, "#1") || !strings.Contains(first, "fused #1") || !strings.Contains(first, "full text") {
		t.Fatalf("first hit: %q", first)
	}
	// Change a setting without saving: the test uses it and says so.
	do(t, b, "unsaved setting",
		chromedp.SetValue(css(`#s-depth`), "80"),
		chromedp.Click(css(`#hit-test button[hx-post]`)),
		chromedp.WaitVisible(css(`#hits .unsaved`)),
	)
	if used := run(t, b, chromedp.Text(css(`#hits .used`))); !strings.Contains(used, "depth 80") {
		t.Fatalf("the test did not use the unsaved depth: %q", used)
	}
	if !run(t, b, chromedp.Evaluate[bool](`window.__notReloaded === true`)) {
		t.Fatal("hit testing reloaded the page")
	}
	do(t, b, "screenshot", shootView(shots, "knowledge-hit-test.png"))
}

// shootView takes a screenshot of the window only (the content and
// hit-testing pages are long; the docs need their top, and small files).
func shootView(dir, name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		png, err := chromedp.CaptureScreenshot()(ctx, tg)
		if err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.Void{}, os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
}
