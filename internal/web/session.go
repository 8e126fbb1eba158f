package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Session is the signed-in session of a request.
type Session struct {
	ConsoleSession
}

const (
	sessionCookie = "agentry_session"
	// touchEvery bounds how often a session's last activity is written:
	// the idle expiry is accurate to this much, and a page view is not a
	// database write.
	touchEvery = time.Minute
)

// newToken is a random secret with a readable prefix.
func newToken(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// hashToken is what the database keeps of a token.
func hashToken(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

// loadSession reads the session the cookie names, if it is still valid.
func (c *Console) loadSession(r *http.Request) (*Session, string, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || !strings.HasPrefix(ck.Value, "acs_") || len(ck.Value) > 100 {
		return nil, "", nil
	}
	s, err := c.sessions.byToken(r.Context(), hashToken(ck.Value))
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	now := time.Now()
	if s.RevokedAt != nil || !now.Before(s.ExpiresAt) || now.Sub(s.LastSeenAt) >= c.cfg.SessionIdle {
		return nil, "", nil
	}
	if now.Sub(s.LastSeenAt) >= touchEvery {
		if err := c.sessions.touch(r.Context(), s.ID); err != nil {
			return nil, "", err
		}
	}
	return &Session{s}, ck.Value, nil
}

// startSession opens a session and sets its cookie. in names who it acts
// as (UserID, KeyHash, AccountID).
func (c *Console) startSession(w http.ResponseWriter, r *http.Request, in ConsoleSession) error {
	c.sweepSessions(r)
	token := newToken("acs_")
	in.ExpiresAt = time.Now().Add(c.cfg.SessionLifetime)
	if _, err := c.sessions.create(r.Context(), in, hashToken(token)); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secureRequest(r), MaxAge: int(c.cfg.SessionLifetime.Seconds())})
	return nil
}

// clearSession drops the session cookie.
func clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secureRequest(r), MaxAge: -1})
}

// secureRequest reports whether the browser reached us over TLS, directly
// or through a proxy that says so: cookies are then Secure.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// sweepSessions deletes sessions past their absolute expiry or revoked,
// and expired links. It runs on every sign-in (a person's action, rare
// next to page views), so an idle server does no work and the tables
// stay as small as the live sessions. A failure is logged: it never stops
// a sign-in.
func (c *Console) sweepSessions(r *http.Request) {
	if err := c.sessions.deleteExpired(r.Context(), time.Now()); err != nil {
		c.log.Warn("console: sweeping ended sessions", "err", err)
	}
}
