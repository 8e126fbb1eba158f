package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentry/agentry/client"
)

// The header's search (GET /console/search?q=): the account search across
// resource types (GET /search) and the documentation search (GET
// /docs-search), on one page. Each resource links to its console page
// (resourceURL), each documentation page to its reading page (docsURL).

func init() { registerArea((*Console).searchRoutes) }

func (c *Console) searchRoutes() {
	c.page("GET "+Prefix+"search", c.searchPage)
}

// searchTypes are the entity types the account search knows, as the
// filter offers them (docs/search.md).
var searchTypes = []struct{ Value, Label string }{
	{"", "everything"}, {"agent", "agents"}, {"run", "runs"}, {"solution", "solutions"},
	{"knowledge_base", "knowledge bases"}, {"source_connection", "sources"}, {"content", "documents"},
	{"memory_bank", "memory banks"}, {"evaluation_criteria", "evaluation criteria"}, {"alert", "alerts"},
	{"governance_policy", "governance policies"}, {"api_key", "API keys"},
}

// searchLimit and docsLimit are the most results each search asks for
// (the API's maximums are 50 and 20).
const (
	searchLimit = 50
	docsLimit   = 8
)

type searchRow struct {
	client.SearchResult
	URL string
}

type docsRow struct {
	client.DocsResult
	URL string
}

type searchView struct {
	Query, Type, Mode string
	Types             []struct{ Value, Label string }
	Searched          bool
	Results           []searchRow
	Docs              []docsRow
	Problems          []problem
}

func (c *Console) searchPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	v := searchView{Query: strings.TrimSpace(q.Get("q")), Type: q.Get("type"), Mode: q.Get("mode"), Types: searchTypes}
	if v.Mode != "semantic" {
		v.Mode = "keyword"
	}
	if v.Query == "" {
		return req.Page(http.StatusOK, "search.html", "Search", "", v)
	}
	v.Searched = true
	found, err := cl.Search(req.Ctx(), v.Query, v.Type, searchLimit)
	if probs, ok := apiProblems(err, nil); ok {
		// Too long a query, or an unknown type: said next to the form.
		v.Problems = probs
		return req.Page(http.StatusUnprocessableEntity, "search.html", "Search", "", v)
	}
	if err != nil {
		return err
	}
	for _, r := range found {
		v.Results = append(v.Results, searchRow{SearchResult: r, URL: resourceURL(r.EntityType, r.ID)})
	}
	pages, err := cl.SearchDocs(req.Ctx(), v.Query, v.Mode, docsLimit)
	if err != nil {
		return err
	}
	for _, d := range pages {
		v.Docs = append(v.Docs, docsRow{DocsResult: d, URL: docsURL(d.DocSlug, deref(d.Anchor))})
	}
	return req.Page(http.StatusOK, "search.html", "Search", "", v)
}

// docsURL is where the console shows a documentation page (pages_docs.go),
// at a section when the search names one.
func docsURL(slug, anchor string) string {
	u := Prefix + "docs/" + url.PathEscape(slug)
	if anchor != "" {
		u += "#" + url.PathEscape(anchor)
	}
	return u
}
