package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// A source's page: what it is, its schedule and last fetch, pause and
// resume, uploads (streamed through, pages_knowledge_upload.go), inline
// text, its contents with their indexing status (live while any is on its
// way), exports and the embedding migration (pages_knowledge_jobs.go).

func (c *Console) sourceRoutes() {
	c.page("GET "+kPrefix+"/sources/{id}", c.sourcePage)
	c.page("GET "+kPrefix+"/sources/{id}/contents", c.sourceContents)
	c.page("POST "+kPrefix+"/sources/{id}/polling", c.sourcePolling)
	c.page("POST "+kPrefix+"/sources/{id}/text", c.sourceText)
	c.page("POST "+kPrefix+"/sources/{id}/upload", c.sourceUpload)
	c.page("POST "+kPrefix+"/sources/{id}/delete", c.sourceDelete)
	c.jobRoutes()
}

// contentsPerPage is how many contents a page of the list shows.
const contentsPerPage = 50

// contentStatuses are the list's filters.
var contentStatuses = []string{"pending", "indexed", "failed"}

// contentsView is the list of a source's contents: one page, its filter,
// and whether it must keep refreshing (a content on its way).
type contentsView struct {
	SourceID    string
	Status      string
	Statuses    []string
	Page, Pages int
	Total       int
	Items       []client.SourceContent
	Live        bool // some content on this page is not indexed or failed yet
	Pending     int  // contents of the source on their way (all pages)
}

type sourceView struct {
	Source        *client.Source
	Polled        bool // fed by polling (rss, website)
	Paused        bool
	Pollings      []string
	Contents      contentsView
	Jobs          jobsView
	Formats       []string
	TextTitle     string
	Text          string
	Problems      []problem
	MaxUpload     int64
	NoticeMessage string
}

func (v sourceView) flash() string { return v.NoticeMessage }

func (c *Console) sourcePage(req *Request) error {
	return c.renderSource(req, http.StatusOK, sourceView{NoticeMessage: notice(req)})
}

// notice is the one-line notice an action left in the query string
// (?done=…), from a fixed list so that a link cannot put words on the page.
func notice(req *Request) string {
	return notices[req.URL.Query().Get("done")]
}

var notices = map[string]string{
	"paused": "Polling paused.", "resumed": "Polling resumed.", "text": "Text added: it is being indexed.",
	"duplicate": "That text is already in this source.", "export": "Export started.", "export-cancelled": "Export cancelled.",
	"migration": "Embedding migration started.", "migration-cancelled": "Embedding migration cancelled.",
	"replaced": "New version uploaded: it is being indexed.", "settings": "Search settings saved.",
}

func (c *Console) renderSource(req *Request, status int, v sourceView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if v.Source, err = cl.GetSource(req.Ctx(), id); err != nil {
		return err
	}
	v.Polled = v.Source.SourceType == "rss" || v.Source.SourceType == "website"
	v.Paused = v.Polled && v.Source.Polling != nil && *v.Source.Polling == "never"
	v.Pollings, v.Formats, v.MaxUpload = pollings, exportFormats, client.MaxUploadSize
	if v.Contents, err = readContents(req, cl, id); err != nil {
		return err
	}
	if v.Jobs, err = readJobs(req, cl, v.Source); err != nil {
		return err
	}
	return req.Page(status, "knowledge_source.html", v.Source.Name, "knowledge", v)
}

// readContents reads the page of contents the query string asks for, and
// how many of the source's contents are still on their way.
func readContents(req *Request, cl *client.Client, sourceID string) (contentsView, error) {
	q := req.URL.Query()
	v := contentsView{SourceID: sourceID, Status: q.Get("status"), Statuses: contentStatuses}
	v.Page, _ = strconv.Atoi(q.Get("page"))
	v.Page = max(v.Page, 1)
	p, err := cl.ListSourceContents(req.Ctx(), sourceID, client.SourceContentListOptions{Status: v.Status, Page: v.Page, Limit: contentsPerPage})
	if err != nil {
		return v, err
	}
	v.Items, v.Total, v.Pages = p.Items, p.Total, p.Pages
	for _, it := range p.Items {
		if !it.Finished() {
			v.Live = true
		}
	}
	if v.Status == client.ContentPending {
		v.Pending = v.Total
	} else {
		pending, err := cl.ListSourceContents(req.Ctx(), sourceID, client.SourceContentListOptions{Status: client.ContentPending, Limit: 1})
		if err != nil {
			return v, err
		}
		v.Pending = pending.Total
	}
	v.Live = v.Live || v.Pending > 0
	return v, nil
}

// sourceContents is the contents list alone: the htmx refresh while
// contents are indexed, and the list's pages and filter.
func (c *Console) sourceContents(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := readContents(req, cl, req.PathValue("id"))
	if err != nil {
		return err
	}
	return req.Fragment(http.StatusOK, "knowledge_source.html", "contents", v)
}

// sourcePolling pauses (polling "never") or resumes (a schedule) a polled source.
func (c *Console) sourcePolling(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	polling := req.PostFormValue("polling")
	if polling == "" {
		return req.Error(http.StatusBadRequest, "Choose a schedule.")
	}
	if _, err := cl.UpdateSource(req.Ctx(), req.PathValue("id"), client.UpdateSourceRequest{Polling: &polling}); err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderSource(req, http.StatusUnprocessableEntity, sourceView{Problems: ps})
		}
		return err
	}
	done := "resumed"
	if polling == "never" {
		done = "paused"
	}
	return req.Redirect(kPrefix + "/sources/" + req.PathValue("id") + "?done=" + done)
}

// sourceText adds inline text (at most 8192 bytes, the API's limit).
func (c *Console) sourceText(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	title, text := strings.TrimSpace(req.PostFormValue("title")), req.PostFormValue("text")
	body := client.InlineText{Text: text}
	if title != "" {
		body.Title = &title
	}
	up, err := cl.AddSourceText(req.Ctx(), req.PathValue("id"), body)
	if err != nil {
		if ps, ok := formProblems(err); ok {
			return c.renderSource(req, http.StatusUnprocessableEntity, sourceView{Problems: ps, TextTitle: title, Text: text})
		}
		return err
	}
	done := "text"
	if up.Status == "duplicate" {
		done = "duplicate"
	}
	return req.Redirect(kPrefix + "/sources/" + req.PathValue("id") + "?done=" + done)
}

// sourceDelete deletes the source with its contents.
func (c *Console) sourceDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.DeleteSource(req.Ctx(), req.PathValue("id")); err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest {
			return req.Error(http.StatusBadRequest, ae.Message)
		}
		return err
	}
	return req.Redirect(kPrefix)
}
