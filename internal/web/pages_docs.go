package web

import (
	"io/fs"
	"net/http"
	"regexp"
	"strings"

	"github.com/agentry/agentry/docs"
)

// The documentation page (GET /console/docs/{slug}) is where the search's
// documentation results link. The pages are the Markdown files built into
// the binary (package docs), the same the API's GET /docs-search reads:
// product documentation, the same for every account, not account data, so
// reading them here is no side door around the API. They are shown as
// headings (with the anchors the search returns), code blocks and plain
// text: enough to read them, without a Markdown library.

func init() { registerArea((*Console).docsRoutes) }

func (c *Console) docsRoutes() {
	c.page("GET "+Prefix+"docs/{slug}", c.docsPage)
}

// docBlock is a heading, a code block, a table or a paragraph.
type docBlock struct {
	Kind  string // h1, h2, h3, code, table, text
	ID    string // a heading's anchor
	Text  string
	Level int
}

type docsPageView struct {
	Slug   string
	Blocks []docBlock
}

var (
	docSlug    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	docHeading = regexp.MustCompile(`^(#{1,3})\s+(.+?)\s*#*\s*$`)
	docAnchor  = regexp.MustCompile(`[^a-z0-9 _-]+`)
)

// headingAnchor is the anchor the documentation search gives a heading
// (internal/search: lower case, punctuation dropped, spaces as dashes).
func headingAnchor(h string) string {
	a := docAnchor.ReplaceAllString(strings.ToLower(h), "")
	return strings.ReplaceAll(strings.TrimSpace(a), " ", "-")
}

func (c *Console) docsPage(req *Request) error {
	slug := req.PathValue("slug")
	if !docSlug.MatchString(slug) {
		return req.Error(http.StatusNotFound, "There is no such documentation page.")
	}
	b, err := fs.ReadFile(docs.FS, slug+".md")
	if err != nil {
		return req.Error(http.StatusNotFound, "There is no such documentation page.")
	}
	v := docsPageView{Slug: slug, Blocks: docBlocks(string(b))}
	title := slug
	if len(v.Blocks) > 0 && v.Blocks[0].Kind == "h1" {
		title = v.Blocks[0].Text
	}
	return req.Page(http.StatusOK, "search_docs.html", title, "", v)
}

// docBlocks splits Markdown into blocks.
func docBlocks(md string) []docBlock {
	var out []docBlock
	var cur []string
	kind := ""
	flush := func() {
		if len(cur) > 0 {
			out = append(out, docBlock{Kind: kind, Text: strings.Join(cur, "\n")})
		}
		cur, kind = nil, ""
	}
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if kind == "code" {
			if strings.HasPrefix(trimmed, "```") {
				flush()
				continue
			}
			cur = append(cur, line)
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			kind = "code"
			cur = []string{}
			continue
		case docHeading.MatchString(line):
			flush()
			m := docHeading.FindStringSubmatch(line)
			out = append(out, docBlock{Kind: "h" + string(rune('0'+len(m[1]))), Level: len(m[1]), Text: m[2], ID: headingAnchor(m[2])})
			continue
		case trimmed == "":
			flush()
			continue
		}
		k := "text"
		if strings.HasPrefix(trimmed, "|") {
			k = "table"
		}
		if kind != "" && kind != k {
			flush()
		}
		kind = k
		cur = append(cur, line)
	}
	flush()
	return out
}
