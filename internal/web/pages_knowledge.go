package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// The knowledge area: sources and knowledge bases (this file), a source's
// page with its uploads, contents, exports and embedding migration
// (pages_knowledge_source*.go), a content's page
// (pages_knowledge_content.go) and a knowledge base's page with hit
// testing (pages_knowledge_base.go). Every read and action goes through
// the API: /sources, /contents, /knowledge_bases and their extensions.

func init() {
	registerArea((*Console).knowledgeRoutes)
	funcs["bytes"] = humanBytes
	funcs["contentStatusClass"] = contentStatusClass
	funcs["percent"] = percent
	funcs["num"] = fixed
	funcs["dropzone"] = func(url string, maxBytes int64, multiple, reload bool) dropzone {
		return dropzone{URL: url, Max: maxBytes, Multiple: multiple, Reload: reload}
	}
}

const kPrefix = Prefix + "knowledge"

func (c *Console) knowledgeRoutes() {
	c.page("GET "+kPrefix, c.knowledgePage)
	c.page("POST "+kPrefix+"/sources", c.sourceCreate)
	c.page("POST "+kPrefix+"/bases", c.baseCreate)
	c.sourceRoutes()
	c.contentRoutes()
	c.baseRoutes()
}

// dropzone is the upload area of a page: where the files go, the size
// limit, and whether the page reloads after (a content's new version) or
// refreshes its contents list (a source).
type dropzone struct {
	URL              string
	Max              int64
	Multiple, Reload bool
}

// sourceTypes are the kinds of source the form offers, in the API's words.
var sourceTypes = []struct{ Value, Label string }{{"custom_index", "Uploads and inline text"}, {"rss", "RSS, Atom or JSON feed"},
	{"website", "Web site"}}

// indexModes are the presets of embedding size and chunking.
var indexModes = []string{"fast_and_cheap", "balanced", "slow_and_thorough"}

// pollings are the schedules the forms offer (the API also takes durations).
var pollings = []string{"hourly", "daily", "weekly", "never"}

// sourceForm is the new-source form, kept to refill it after a problem.
type sourceForm struct{ Name, Type, URL, IndexMode, Polling string }

// baseForm is the new-knowledge-base form.
type baseForm struct {
	Name, Description string
	SourceIDs         map[string]bool
}

type knowledgeView struct {
	Sources       []client.Source
	SourceTotal   int
	Page, Pages   int
	Bases         []client.KnowledgeBase
	BaseTotal     int
	Types         []struct{ Value, Label string }
	Modes         []string
	Pollings      []string
	Source        sourceForm
	Base          baseForm
	Problems      []problem // of the new-source form
	BaseProblems  []problem // of the new-knowledge-base form
	NoticeMessage string
}

func (v knowledgeView) flash() string { return v.NoticeMessage }

func (c *Console) knowledgePage(req *Request) error {
	return c.renderKnowledge(req, http.StatusOK, knowledgeView{Source: sourceForm{Type: "custom_index"}})
}

// renderKnowledge reads a page of sources (100, by name) and the first
// 100 knowledge bases: the area's home.
func (c *Console) renderKnowledge(req *Request, status int, v knowledgeView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v.Page, _ = strconv.Atoi(req.URL.Query().Get("page"))
	v.Page = max(v.Page, 1)
	sources, err := cl.ListSources(req.Ctx(), client.SourceListOptions{Page: v.Page, Limit: 100, Sort: "name", Order: "asc"})
	if err != nil {
		return err
	}
	v.Sources, v.SourceTotal, v.Pages = sources.Items, sources.Total, sources.Pages
	bases, err := cl.ListKnowledgeBases(req.Ctx(), client.SourceListOptions{Limit: 100, Sort: "name", Order: "asc"})
	if err != nil {
		return err
	}
	v.Bases, v.BaseTotal = bases.Items, bases.Total
	v.Types, v.Modes, v.Pollings = sourceTypes, indexModes, pollings
	return req.Page(status, "knowledge_list.html", "Knowledge", "knowledge", v)
}

func (c *Console) sourceCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	f := sourceForm{Name: strings.TrimSpace(req.PostFormValue("name")), Type: req.PostFormValue("source_type"),
		URL: strings.TrimSpace(req.PostFormValue("url")), IndexMode: req.PostFormValue("index_mode"), Polling: req.PostFormValue("polling")}
	body := client.CreateSourceRequest{Name: f.Name, SourceType: f.Type}
	if f.IndexMode != "" {
		body.IndexMode = &f.IndexMode
	}
	if f.Type != "custom_index" {
		if f.URL != "" {
			body.URLID = &f.URL
		}
		if f.Polling != "" {
			body.Polling = &f.Polling
		}
	}
	src, err := cl.CreateSource(req.Ctx(), body)
	if err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderKnowledge(req, http.StatusUnprocessableEntity, knowledgeView{Source: f, Problems: ps})
		}
		return err
	}
	return req.Redirect(kPrefix + "/sources/" + src.ID)
}

func (c *Console) baseCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	f := baseForm{Name: strings.TrimSpace(req.PostForm.Get("name")), Description: strings.TrimSpace(req.PostForm.Get("description")),
		SourceIDs: map[string]bool{}}
	ids := []string{}
	for _, id := range req.PostForm["source_id"] {
		f.SourceIDs[id] = true
		ids = append(ids, id)
	}
	body := client.KnowledgeBaseRequest{Name: &f.Name, SourceIDs: &ids}
	if f.Description != "" {
		body.Description = &f.Description
	}
	kb, err := cl.CreateKnowledgeBase(req.Ctx(), body)
	if err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderKnowledge(req, http.StatusUnprocessableEntity, knowledgeView{Source: sourceForm{Type: "custom_index"}, Base: f, BaseProblems: ps})
		}
		return err
	}
	return req.Redirect(kPrefix + "/bases/" + kb.ID)
}

// formProblems shows the API's refusal of a form's values next to the
// form: its 422 items, or the message of another 4xx about the request
// (400, 409, 413, 415). A 404 stays a page of its own.
func formProblems(err error) ([]problem, bool) {
	if ps, ok := apiProblems(err, nil); ok {
		return ps, true
	}
	var ae *client.APIError
	if errors.As(err, &ae) {
		switch ae.StatusCode {
		case http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
			return []problem{{Severity: "error", Message: ae.Message}}, true
		}
	}
	return nil, false
}

// contentStatusClass is the CSS class of a content's indexing status.
func contentStatusClass(status string) string {
	switch status {
	case "indexed", "completed":
		return "ks-ok"
	case "failed", "cancelled", "expired":
		return "ks-failed"
	case "queued", "pending":
		return "ks-wait"
	}
	return "ks-run"
}

// humanBytes shows a size briefly: 812 B, 4.2 KiB, 17.0 MiB.
func humanBytes(n any) string {
	var v int64
	switch x := n.(type) {
	case int64:
		v = x
	case *int64:
		if x == nil {
			return "—"
		}
		v = *x
	case int:
		v = int64(x)
	}
	const unit = 1024
	if v < unit {
		return strconv.FormatInt(v, 10) + " B"
	}
	f, suffix := float64(v), []string{"KiB", "MiB", "GiB", "TiB"}
	i := -1
	for f >= unit && i < len(suffix)-1 {
		f /= unit
		i++
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + suffix[i]
}

// percent is cur of total as a whole percentage (0 when total is unknown).
func percent(cur, total any) int {
	toInt := func(x any) int {
		switch v := x.(type) {
		case int:
			return v
		case *int:
			if v != nil {
				return *v
			}
		}
		return 0
	}
	c, t := toInt(cur), toInt(total)
	if t <= 0 {
		return 0
	}
	return min(100, c*100/t)
}

// fixed shows a score with digits decimals; "—" for a side that did not
// score (nil).
func fixed(v any, digits int) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', digits, 64)
	case *float64:
		if x != nil {
			return strconv.FormatFloat(*x, 'f', digits, 64)
		}
	}
	return "—"
}
