package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"time"
)

//go:embed all:templates
var templateFiles embed.FS

// pageSet is every page template, each parsed with the layout and the
// shared partials (templates/_*.html), keyed by file name.
type pageSet struct{ pages map[string]*template.Template }

// funcs are the helpers templates may call.
var funcs = template.FuncMap{
	"time": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if v.IsZero() {
				return ""
			}
			return v.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if v == nil || v.IsZero() {
				return ""
			}
			return v.UTC().Format("2006-01-02 15:04 UTC")
		}
		return fmt.Sprint(t)
	},
	"json": func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		return string(b), err
	},
	"join":  strings.Join,
	"query": url.QueryEscape,
	"path":  url.PathEscape,
	"add":   func(a, b int) int { return a + b },
	"list":  func(s ...string) []string { return s },
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}

func parsePages() (*pageSet, error) {
	base := template.New("").Funcs(funcs)
	if _, err := base.ParseFS(templateFiles, "templates/layout.html", "templates/_*.html"); err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	ps := &pageSet{pages: map[string]*template.Template{}}
	for _, n := range names {
		name := path.Base(n)
		if name == "layout.html" || strings.HasPrefix(name, "_") {
			continue
		}
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(templateFiles, n); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		ps.pages[name] = t
	}
	return ps, nil
}

// render executes a page's block ("layout" for a whole page, or a block
// the page defines, for an htmx fragment) into a buffer, so that a
// template error never sends half a page.
func (ps *pageSet) render(page, block string, v any) ([]byte, error) {
	t, ok := ps.pages[page]
	if !ok {
		return nil, fmt.Errorf("no page template %q", page)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, block, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
