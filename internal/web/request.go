package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/agentry/agentry/client"
)

// Request is one console request: the HTTP request, its response, the
// signed-in session (nil on public pages) and the API as that session.
type Request struct {
	*http.Request
	W       http.ResponseWriter
	Session *Session

	c            *Console
	sessionToken string
	csrfKey      string
	api          *client.Client
}

// API is the public Go client acting as the session, in process. Pass it
// req.Ctx() so the call carries the session's credential.
func (req *Request) API() (*client.Client, error) {
	if req.Session == nil {
		return nil, errors.New("console: API needs a session")
	}
	if req.api == nil {
		cl, err := req.c.apiClient(req.Session)
		if err != nil {
			return nil, err
		}
		req.api = cl
	}
	return req.api, nil
}

// Ctx is the request's context with the session's API credential.
func (req *Request) Ctx() context.Context {
	if req.Session == nil {
		return req.Context()
	}
	return credentialContext(req.Context(), req.Session, req.RemoteAddr)
}

// CSRF is the token forms and htmx requests send back.
func (req *Request) CSRF() string { return csrfToken(req.csrfKey) }

// View is what every page template gets: the page's own data in .Data,
// and what the layout needs.
type View struct {
	Title   string
	Nav     string // the menu entry to highlight
	CSRF    string
	Session *Session
	Version string
	Flash   string // a one-line notice above the page
	Data    any
	// SearchQuery keeps the header's search box filled on the search page.
	SearchQuery string
}

// Page renders a whole page: templates/<page> inside the layout. For an
// htmx request that targets a fragment, use Fragment.
func (req *Request) Page(status int, page, title, nav string, data any) error {
	return req.write(status, page, "layout", title, nav, data)
}

// Fragment renders one block a page template defines (an htmx swap),
// with data as its dot: the same value the page passes the block with
// {{template "block" .Data}}. (A fragment that holds a form takes the
// CSRF token from its data, or relies on the htmx header.)
func (req *Request) Fragment(status int, page, block string, data any) error {
	return req.send(status, page, block, data)
}

func (req *Request) write(status int, page, block, title, nav string, data any) error {
	v := View{Title: title, Nav: nav, CSRF: req.CSRF(), Session: req.Session, Version: req.c.cfg.Version, Data: data}
	if f, ok := data.(interface{ flash() string }); ok {
		v.Flash = f.flash()
	}
	if req.URL.Path == Prefix+"search" {
		v.SearchQuery = req.URL.Query().Get("q")
	}
	return req.send(status, page, block, v)
}

func (req *Request) send(status int, page, block string, v any) error {
	b, err := req.c.pages.render(page, block, v)
	if err != nil {
		return err
	}
	req.W.Header().Set("Content-Type", "text/html; charset=utf-8")
	req.W.WriteHeader(status)
	_, _ = req.W.Write(b)
	return nil
}

// Redirect sends the browser to a console path after an action. For htmx
// requests it uses HX-Redirect, which htmx follows with a full page load.
func (req *Request) Redirect(to string) error {
	if req.Header.Get("HX-Request") != "" {
		req.W.Header().Set("HX-Redirect", to)
		req.W.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(req.W, req.Request, to, http.StatusSeeOther)
	return nil
}

// errorView is the data of the error page.
type errorView struct {
	Status  int
	Message string
}

// Error renders the error page with a status and a sentence.
func (req *Request) Error(status int, msg string) error {
	title := http.StatusText(status)
	if err := req.write(status, "error.html", "layout", title, "", errorView{status, msg}); err != nil {
		http.Error(req.W, msg, status)
	}
	return nil
}

// fail turns a handler's error into a page: the API's statuses keep their
// meaning (another account's resource is a 404, as in the API); anything
// else is logged and shown as a 500 without its details.
func (c *Console) fail(req *Request, err error) {
	var ae *client.APIError
	if errors.As(err, &ae) {
		switch ae.StatusCode {
		case http.StatusUnauthorized:
			clearSession(req.W, req.Request)
			_ = req.Error(http.StatusUnauthorized, "Your session is no longer valid (its key may have been revoked). Sign in again.")
			return
		case http.StatusNotFound:
			_ = req.Error(http.StatusNotFound, "There is no such page, or it is not in this account.")
			return
		case http.StatusInternalServerError:
		default:
			_ = req.Error(ae.StatusCode, ae.Message)
			return
		}
	}
	c.log.Error("console page failed", "path", req.URL.Path, "err", err)
	_ = req.Error(http.StatusInternalServerError, "Something went wrong on the server. The log has the details.")
}

// urlQueryEscape escapes a value for a query string.
func urlQueryEscape(s string) string { return url.QueryEscape(s) }
