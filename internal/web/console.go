package web

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Prefix is where the console is served.
const Prefix = "/console/"

// Config tunes the console.
type Config struct {
	// SessionIdle ends a session after this long without a request, and
	// SessionLifetime this long after sign-in.
	SessionIdle     time.Duration
	SessionLifetime time.Duration
	// MailDomain is the shared domain agents receive mail at.
	MailDomain string
	// Version is shown in the footer.
	Version string
	// OIDC, when set, offers single sign-on on the sign-in page.
	OIDC *OIDCConfig
}

// Console is the web console: server-rendered pages that call the API in
// process (see inprocess.go) on behalf of a signed-in session.
type Console struct {
	db *store.DB // a pasted key's user only: never resource data
	// sessions keeps the console's sessions and sign-in links.
	sessions sessionRepo
	api      http.Handler
	cfg      Config
	pages    *pageSet
	mux      *http.ServeMux
	log      *slog.Logger
}

// areas are the route registrations of every pages_<area>.go file, added
// by their init functions, so that an area never edits a shared file.
var areas []func(*Console)

// registerArea adds an area's routes; call it from an init function.
func registerArea(f func(*Console)) { areas = append(areas, f) }

// New builds the console. api is the API's HTTP handler, called in process.
func New(db *store.DB, api http.Handler, cfg Config) (*Console, error) {
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = 12 * time.Hour
	}
	if cfg.SessionLifetime <= 0 {
		cfg.SessionLifetime = 7 * 24 * time.Hour
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{db: db, sessions: sessionRepo{db}, api: api, cfg: cfg, pages: pages, mux: http.NewServeMux(), log: slog.Default().With("area", "console")}
	c.mux.Handle("GET "+Prefix+"static/", staticHandler())
	for _, add := range areas {
		add(c)
	}
	c.mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Prefix {
			// The console's home, until an area registers "GET /console/{$}"
			// (a more specific pattern, which then wins).
			c.serve(w, r, func(req *Request) error { return req.Redirect(Prefix + "agents") }, true)
			return
		}
		c.serve(w, r, c.notFound, true)
	})
	return c, nil
}

// Mount routes /console/… to the console, redirects / there, and sends
// everything else to next (the API).
func (c *Console) Mount(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			http.Redirect(w, r, Prefix, http.StatusFound)
		case r.URL.Path == "/console":
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, Prefix):
			c.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// ServeHTTP serves the console's routes, with its security headers.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header())
	c.mux.ServeHTTP(w, r)
}

// Handler is a page: it reads or acts through req.API and renders.
type Handler func(req *Request) error

// page registers a page that needs a signed-in session; without one, GET
// requests go to the sign-in page (and come back after) and others get 401.
func (c *Console) page(pattern string, h Handler) {
	c.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { c.serve(w, r, h, true) })
}

// public registers a page anyone may see (sign-in).
func (c *Console) public(pattern string, h Handler) {
	c.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { c.serve(w, r, h, false) })
}

// serve runs a handler: session, CSRF check, then the handler, whose error
// becomes an error page.
func (c *Console) serve(w http.ResponseWriter, r *http.Request, h Handler, needSession bool) {
	w.Header().Set("Cache-Control", "no-store")
	req := &Request{Request: r, W: w, c: c}
	sess, token, err := c.loadSession(r)
	if err != nil {
		c.fail(req, err)
		return
	}
	req.Session, req.sessionToken = sess, token
	req.csrfKey = token
	if sess == nil {
		req.csrfKey = c.preSessionKey(w, r)
	}
	if !safeMethod(r.Method) {
		if err := checkCSRF(w, r, req.csrfKey); err != nil {
			req.Error(http.StatusForbidden, "This form has expired or did not come from this console. Reload the page and try again.")
			return
		}
	}
	if needSession && sess == nil {
		if r.Method == http.MethodGet && r.Header.Get("HX-Request") == "" {
			http.Redirect(w, r, Prefix+"signin?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		req.Error(http.StatusUnauthorized, "Your session has ended. Sign in again.")
		return
	}
	if err := h(req); err != nil {
		c.fail(req, err)
	}
}

// notFound is the page of an unknown console path.
func (c *Console) notFound(req *Request) error {
	return req.Error(http.StatusNotFound, "There is no such page.")
}
