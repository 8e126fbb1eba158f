package sso

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// callbackPath is where the provider redirects the browser back to us.
const callbackPath = "/callback"

// loginBrowser runs the authorization code flow with PKCE: a listener on a
// loopback port receives the redirect, the state parameter ties the redirect
// to this attempt, and the code verifier proves to the token endpoint that
// the code was redeemed by the process that asked for it.
func loginBrowser(ctx context.Context, p *Provider, o LoginOptions) (*Token, error) {
	addr := o.ListenAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the login redirect on %s: %w", addr, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	// The literal loopback IP, not "localhost": RFC 8252 §7.3, and no
	// resolver can send the redirect elsewhere.
	redirect := "http://127.0.0.1:" + strconv.Itoa(port) + callbackPath

	cfg := oauth2Config(o.Profile.ClientID, o.Profile.ClientSecret,
		oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL}, redirect, p.Scopes())
	state, nonce, verifier := randomString(24), randomString(24), oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce))

	type result struct {
		code string
		err  error
	}
	results := make(chan result, 1)
	deliver := func(r result) {
		select {
		case results <- r:
		default: // a later request (a reload) changes nothing
		}
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != callbackPath {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		switch {
		case q.Get("state") != state:
			// Not ours (a stale tab, or a forged redirect): refuse and keep waiting.
			http.Error(w, "Login failed: the state parameter does not match this login attempt.", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			msg := q.Get("error")
			if d := q.Get("error_description"); d != "" {
				msg += ": " + d
			}
			writePage(w, http.StatusBadRequest, "Login failed", msg)
			deliver(result{err: fmt.Errorf("the identity provider refused the login: %s", msg)})
			return
		case q.Get("code") == "":
			writePage(w, http.StatusBadRequest, "Login failed", "The redirect carried no authorization code.")
			deliver(result{err: errors.New("the redirect carried no authorization code")})
			return
		}
		writePage(w, http.StatusOK, "Login complete", "You can close this tab and return to the terminal.")
		deliver(result{code: q.Get("code")})
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	fmt.Fprintf(o.Out, "To log in, open this URL in a browser on this machine:\n\n  %s\n\n", authURL)
	if o.OpenURL != nil {
		if err := o.OpenURL(authURL); err != nil {
			fmt.Fprintf(o.Out, "Could not open a browser (%v); open the URL yourself.\n", err)
		}
	}
	fmt.Fprintln(o.Out, "Waiting for the login to complete…")

	var code string
	select {
	case r := <-results:
		if r.err != nil {
			return nil, r.err
		}
		code = r.code
	case <-ctx.Done():
		return nil, fmt.Errorf("login not completed: %w", ctx.Err())
	}

	if o.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	}
	ot, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("exchange the authorization code: %w", err)
	}
	t := fromOAuth2(ot, p.Issuer, o.Profile.ClientID, p.TokenURL)
	if err := p.verifyIDToken(ctx, t.IDToken, o.Profile.ClientID, nonce, o.HTTPClient); err != nil {
		return nil, err
	}
	return t, nil
}

func writePage(w http.ResponseWriter, status int, title, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><html><head><title>Agentry: %s</title></head><body><h1>%s</h1><p>%s</p></body></html>",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(msg))
}
