package web

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"golang.org/x/oauth2"
)

// OIDCConfig enables single sign-on on the sign-in page: the
// authorization-code flow with PKCE against the issuer the API trusts.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// PublicURL, when set, is the console's address as the browser sees
	// it (the callback is PublicURL/console/signin/sso/callback); else the
	// request's own host is used.
	PublicURL string
	// Verifier checks the ID token for ClientID; Users turns its identity
	// into the user (created on first sight, as the API does).
	Verifier *auth.OIDC
	Users    func(context.Context, auth.Identity) (directory.User, error)

	once     sync.Mutex
	authURL  string
	tokenURL string
}

func (o *OIDCConfig) endpoint(ctx context.Context) (oauth2.Endpoint, error) {
	o.once.Lock()
	defer o.once.Unlock()
	if o.authURL == "" {
		a, t, err := o.Verifier.Endpoint(ctx)
		if err != nil {
			return oauth2.Endpoint{}, err
		}
		o.authURL, o.tokenURL = a, t
	}
	return oauth2.Endpoint{AuthURL: o.authURL, TokenURL: o.tokenURL}, nil
}

func (c *Console) ssoRoutes() {
	if c.cfg.OIDC == nil {
		return
	}
	c.public("GET "+Prefix+"signin/sso", c.ssoStart)
	c.public("GET "+Prefix+"signin/sso/callback", c.ssoCallback)
}

func init() { registerArea((*Console).ssoRoutes) }

const ssoCookie = "agentry_sso"

// ssoState is what the browser carries through the identity provider, in
// an HttpOnly cookie scoped to the callback: the state the callback must
// match, the PKCE verifier and the nonce the ID token must carry.
type ssoState struct {
	State    string `json:"s"`
	Verifier string `json:"v"`
	Nonce    string `json:"n"`
	Next     string `json:"x"`
}

func (c *Console) oauthConfig(req *Request, ep oauth2.Endpoint) *oauth2.Config {
	base := strings.TrimRight(c.cfg.OIDC.PublicURL, "/")
	if base == "" {
		scheme := "http"
		if secureRequest(req.Request) {
			scheme = "https"
		}
		base = scheme + "://" + req.Host
	}
	return &oauth2.Config{ClientID: c.cfg.OIDC.ClientID, ClientSecret: c.cfg.OIDC.ClientSecret, Endpoint: ep,
		RedirectURL: base + Prefix + "signin/sso/callback", Scopes: []string{"openid", "email", "profile"}}
}

func (c *Console) ssoStart(req *Request) error {
	ep, err := c.cfg.OIDC.endpoint(req.Context())
	if err != nil {
		c.log.Warn("console: single sign-on discovery", "err", err)
		return req.Error(http.StatusBadGateway, "The identity provider cannot be reached. Try again, or sign in with an API key.")
	}
	st := ssoState{State: newToken(""), Verifier: oauth2.GenerateVerifier(), Nonce: newToken(""), Next: safeNext(req.URL.Query().Get("next"))}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	http.SetCookie(req.W, &http.Cookie{Name: ssoCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: Prefix + "signin/sso",
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secureRequest(req.Request), MaxAge: int((10 * time.Minute).Seconds())})
	u := c.oauthConfig(req, ep).AuthCodeURL(st.State, oauth2.S256ChallengeOption(st.Verifier), oauth2.SetAuthURLParam("nonce", st.Nonce))
	http.Redirect(req.W, req.Request, u, http.StatusFound)
	return nil
}

var errSSO = errors.New("single sign-on failed")

func (c *Console) ssoCallback(req *Request) error {
	ck, err := req.Cookie(ssoCookie)
	http.SetCookie(req.W, &http.Cookie{Name: ssoCookie, Value: "", Path: Prefix + "signin/sso", HttpOnly: true, MaxAge: -1})
	var st ssoState
	if err == nil && len(ck.Value) < 2048 {
		if b, derr := base64.RawURLEncoding.DecodeString(ck.Value); derr == nil {
			err = json.Unmarshal(b, &st)
		} else {
			err = derr
		}
	}
	q := req.URL.Query()
	if err != nil || st.State == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(st.State)) != 1 {
		return req.Error(http.StatusBadRequest, "This sign-in did not start here, or took longer than 10 minutes. Sign in again.")
	}
	if e := q.Get("error"); e != "" {
		return req.Error(http.StatusUnauthorized, "The identity provider refused the sign-in: "+clip(e+" "+q.Get("error_description"), 200))
	}
	ep, err := c.cfg.OIDC.endpoint(req.Context())
	if err != nil {
		return req.Error(http.StatusBadGateway, "The identity provider cannot be reached. Try again, or sign in with an API key.")
	}
	ctx, cancel := context.WithTimeout(req.Context(), 20*time.Second)
	defer cancel()
	tok, err := c.oauthConfig(req, ep).Exchange(ctx, q.Get("code"), oauth2.VerifierOption(st.Verifier))
	if err != nil {
		c.log.Warn("console: single sign-on code exchange", "err", err)
		return req.Error(http.StatusUnauthorized, "The identity provider did not accept the sign-in. Sign in again.")
	}
	raw, _ := tok.Extra("id_token").(string)
	id, err := c.cfg.OIDC.Verifier.Verify(ctx, raw)
	if err != nil || subtle.ConstantTimeCompare([]byte(id.Nonce), []byte(st.Nonce)) != 1 {
		c.log.Warn("console: single sign-on ID token", "err", errors.Join(errSSO, err))
		return req.Error(http.StatusUnauthorized, "The identity provider's answer could not be verified. Sign in again.")
	}
	u, err := c.cfg.OIDC.Users(ctx, id)
	if err != nil {
		return err
	}
	s := &Session{ConsoleSession{UserID: u.ID, AccountID: u.PersonalAccountID}}
	if err := c.startSession(req.W, req.Request, s.ConsoleSession); err != nil {
		return err
	}
	return req.Redirect(st.Next)
}
