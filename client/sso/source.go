package sso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// DefaultExpiryMargin is how long before its expiry a token is refreshed.
// It covers clock skew and the time a request spends in flight, so that a
// token never expires between the check and the server's verification.
const DefaultExpiryMargin = time.Minute

// ErrLoginRequired is returned when a token is expired and cannot be
// refreshed (no refresh token, or the provider refused it).
var ErrLoginRequired = errors.New("the SSO session has expired: run `agentry auth login`")

// TokenSource hands out a valid token from the cache for every request,
// refreshing it with the refresh token when it is within Margin of its
// expiry. It never returns an expired token: when a refresh is impossible
// it returns ErrLoginRequired instead. Safe for concurrent use.
type TokenSource struct {
	Cache        Cache
	Issuer       string
	ClientID     string
	ClientSecret string
	Margin       time.Duration    // DefaultExpiryMargin when zero
	HTTPClient   *http.Client     // for the token endpoint; http.DefaultClient when nil
	Now          func() time.Time // time.Now when nil
	OnRefresh    func(*Token)     // optional: observe refreshes (logging, tests)
	mu           sync.Mutex       // serialises refreshes within the process
}

// NewTokenSource is the token source for a configured profile.
func NewTokenSource(configDir string, p Profile, hc *http.Client) (*TokenSource, error) {
	issuer, err := p.Issuer()
	if err != nil {
		return nil, err
	}
	return &TokenSource{Cache: CacheFor(configDir), Issuer: issuer, ClientID: p.ClientID,
		ClientSecret: p.ClientSecret, HTTPClient: hc}, nil
}

func (s *TokenSource) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Token returns a token valid for at least Margin, refreshing it if needed.
func (s *TokenSource) Token(ctx context.Context) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Read the cache every time: another process (a login, or a refresh by
	// a concurrent command) may have replaced it.
	t, err := s.Cache.Load(s.Issuer, s.ClientID)
	if err != nil {
		return nil, err
	}
	margin := s.Margin
	if margin == 0 {
		margin = DefaultExpiryMargin
	}
	if t.Bearer() != "" && !t.ExpiresWithin(margin, s.now()) {
		return t, nil
	}
	refreshed, rerr := s.refresh(ctx, t)
	if rerr == nil {
		return refreshed, nil
	}
	// A token inside the margin but not yet expired still works if the
	// provider is unreachable for a moment; an expired one is never used.
	if t.Bearer() != "" && !t.Expired(s.now()) {
		return t, nil
	}
	return nil, rerr
}

// Bearer returns the credential to send as "Authorization: Bearer".
func (s *TokenSource) Bearer(ctx context.Context) (string, error) {
	t, err := s.Token(ctx)
	if err != nil {
		return "", err
	}
	return t.Bearer(), nil
}

func (s *TokenSource) refresh(ctx context.Context, t *Token) (*Token, error) {
	if t.RefreshToken == "" || t.TokenEndpoint == "" {
		return nil, ErrLoginRequired
	}
	if s.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, s.HTTPClient)
	}
	cfg := oauth2Config(s.ClientID, s.ClientSecret, oauth2.Endpoint{TokenURL: t.TokenEndpoint}, "", nil)
	// An empty access token makes the oauth2 source refresh at once.
	ot, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: t.RefreshToken}).Token()
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrLoginRequired, err)
	}
	next := fromOAuth2(ot, t.Issuer, t.ClientID, t.TokenEndpoint)
	if next.RefreshToken == "" { // providers that do not rotate keep the old one valid
		next.RefreshToken = t.RefreshToken
	}
	// A response without an ID token leaves none: the old one would expire
	// on its own schedule, and the access token is the bearer from now on.
	if next.Expired(s.now()) {
		return nil, fmt.Errorf("%w (the provider issued an already expired token)", ErrLoginRequired)
	}
	if err := s.Cache.Save(next); err != nil {
		return nil, fmt.Errorf("save refreshed token: %w", err)
	}
	if s.OnRefresh != nil {
		s.OnRefresh(next)
	}
	return next, nil
}

// oauth2Config builds the client configuration for a provider. A public
// client (no secret) sends its id in the form, as RFC 6749 §2.3 asks; with a
// secret the library finds out which style the provider wants.
func oauth2Config(clientID, secret string, ep oauth2.Endpoint, redirect string, scopes []string) *oauth2.Config {
	if secret == "" {
		ep.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{ClientID: clientID, ClientSecret: secret, Endpoint: ep, RedirectURL: redirect, Scopes: scopes}
}

func fromOAuth2(ot *oauth2.Token, issuer, clientID, tokenEndpoint string) *Token {
	t := &Token{Issuer: issuer, ClientID: clientID, TokenEndpoint: tokenEndpoint,
		AccessToken: ot.AccessToken, RefreshToken: ot.RefreshToken, TokenType: ot.TokenType, Expiry: ot.Expiry.UTC()}
	if id, ok := ot.Extra("id_token").(string); ok {
		t.IDToken = id
	}
	return t
}
