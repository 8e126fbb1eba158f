package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/store"
)

func init() { registerArea((*Console).signinRoutes) }

func (c *Console) signinRoutes() {
	c.public("GET "+Prefix+"signin", c.signinPage)
	c.public("POST "+Prefix+"signin", c.signinWithKey)
	c.public("GET "+Prefix+"signin/link/{token}", c.signinLinkPage)
	c.public("POST "+Prefix+"signin/link", c.signinWithLink)
	c.public("POST "+Prefix+"signout", c.signout)
	c.page("POST "+Prefix+"signout/everywhere", c.signoutEverywhere)
	c.page("GET "+Prefix+"account", c.accountPage)
	c.page("POST "+Prefix+"account/switch", c.switchAccount)
}

// SigninLinkTTL is how long a one-time sign-in link works.
const SigninLinkTTL = 15 * time.Minute

// NewSigninLink stores a one-time sign-in link for a user and returns its
// path (under /console/); baseURL is prepended by the caller.
func NewSigninLink(ctx context.Context, db *store.DB, userID string) (string, error) {
	token := newToken("acl_")
	if err := (sessionRepo{db}).createSigninLink(ctx, userID, hashToken(token), time.Now().Add(SigninLinkTTL)); err != nil {
		return "", err
	}
	return Prefix + "signin/link/" + token, nil
}

type signinView struct {
	Next  string
	Error string
	SSO   bool
}

// safeNext keeps a post-sign-in destination inside the console.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix
	}
	return next
}

func (c *Console) signinPage(req *Request) error {
	if req.Session != nil {
		return req.Redirect(safeNext(req.URL.Query().Get("next")))
	}
	return req.Page(http.StatusOK, "signin.html", "Sign in", "", signinView{Next: safeNext(req.URL.Query().Get("next")), SSO: c.cfg.OIDC != nil})
}

// signinWithKey checks the pasted key by asking the API who it is, then
// opens a session that acts as the key. The key itself is not kept: the
// session row holds its hash, the browser only the session's cookie.
func (c *Console) signinWithKey(req *Request) error {
	key := strings.TrimSpace(req.PostFormValue("api_key"))
	next := safeNext(req.PostFormValue("next"))
	again := func(msg string) error {
		return req.Page(http.StatusUnauthorized, "signin.html", "Sign in", "", signinView{Next: next, Error: msg, SSO: c.cfg.OIDC != nil})
	}
	if key == "" || len(key) > 512 || !auth.LooksLikeKey(key) {
		return again("That is not an API key. Paste the whole key, as `agentry serve` printed it or `agentry keys create` made it.")
	}
	cl, err := client.New(client.WithBaseURL(consoleBaseURL), client.WithHTTPClient(&http.Client{Transport: inProcess{c.api}}),
		client.WithEnv(func(string) string { return "" }), client.WithAPIKey(key), client.WithUserAgent("agentry-console"), client.WithoutRetries())
	if err != nil {
		return err
	}
	ctx := withRemoteAddr(req.Context(), req.RemoteAddr)
	me, err := cl.Me(ctx)
	if errors.Is(err, client.ErrUnauthorized) {
		return again("The API did not accept this key: it is unknown or revoked.")
	}
	if err != nil {
		return err
	}
	s := ConsoleSession{KeyHash: auth.HashKey(key), AccountID: me.AccountID}
	if k, err := auth.APIKeyByHash(req.Context(), c.db, s.KeyHash); err == nil {
		s.UserID = k.UserID // so that "sign out everywhere" reaches this session too
	}
	if err := c.startSession(req.W, req.Request, s); err != nil {
		return err
	}
	return req.Redirect(next)
}

type linkView struct{ Token string }

// signinLinkPage asks for a click before spending the link, so that a
// mail scanner or link preview that fetches it does not use it up.
func (c *Console) signinLinkPage(req *Request) error {
	return req.Page(http.StatusOK, "signin_link.html", "Sign in", "", linkView{Token: req.PathValue("token")})
}

func (c *Console) signinWithLink(req *Request) error {
	token := req.PostFormValue("token")
	if !strings.HasPrefix(token, "acl_") || len(token) > 100 {
		return req.Error(http.StatusNotFound, "This sign-in link is not valid.")
	}
	userID, err := c.sessions.useSigninLink(req.Context(), hashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return req.Error(http.StatusGone, "This sign-in link was already used or has expired (links work once, for 15 minutes). Ask for a new one with `agentry admin signin-link`.")
	}
	if err != nil {
		return err
	}
	s := &Session{ConsoleSession{UserID: userID}}
	cl, err := c.apiClient(s)
	if err != nil {
		return err
	}
	me, err := cl.Me(credentialContext(req.Context(), s, req.RemoteAddr))
	if err != nil {
		return err
	}
	s.AccountID = me.AccountID
	if err := c.startSession(req.W, req.Request, s.ConsoleSession); err != nil {
		return err
	}
	return req.Redirect(Prefix)
}

func (c *Console) signout(req *Request) error {
	if req.Session != nil {
		if err := c.sessions.revoke(req.Context(), req.Session.ID); err != nil {
			return err
		}
	}
	clearSession(req.W, req.Request)
	return req.Redirect(Prefix + "signin")
}

func (c *Console) signoutEverywhere(req *Request) error {
	if _, err := c.sessions.revokeAllOf(req.Context(), req.Session.ConsoleSession); err != nil {
		return err
	}
	clearSession(req.W, req.Request)
	return req.Redirect(Prefix + "signin")
}

type accountView struct {
	Me        *client.MeResponse
	Current   string
	ByKey     bool
	SwitchErr string
}

func (c *Console) accountPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	me, err := cl.Me(req.Ctx())
	if err != nil {
		return err
	}
	return req.Page(http.StatusOK, "account.html", "Account", "account", accountView{Me: me, Current: req.Session.AccountID, ByKey: req.Session.KeyHash != ""})
}

// switchAccount is the organization switcher: the API's X-Account-Id. It
// asks the API whether the user belongs to the account before switching.
func (c *Console) switchAccount(req *Request) error {
	target := req.PostFormValue("account_id")
	if req.Session.KeyHash != "" {
		return req.Error(http.StatusUnprocessableEntity, "A session opened with an API key acts in that key's account only. Sign in with a sign-in link or single sign-on to switch.")
	}
	cl, err := req.API()
	if err != nil {
		return err
	}
	me, err := cl.Me(req.Ctx())
	if err != nil {
		return err
	}
	ok := target == me.AccountID
	for _, o := range me.Organizations {
		ok = ok || o.AccountID == target
	}
	if !ok {
		return req.Error(http.StatusForbidden, "You are not a member of that account.")
	}
	if err := c.sessions.setAccount(req.Context(), req.Session.ID, target); err != nil {
		return err
	}
	return req.Redirect(Prefix)
}
