package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// contentSecurityPolicy allows nothing but the console's own files: no
// inline script or style, no other origin, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders go on every console response.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// A sign-in link carries its token in the URL: never pass it to
	// another site. (Not no-referrer: browsers then send "Origin: null"
	// with form posts, which the CSRF check refuses.)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

const preSessionCookie = "agentry_presession"

// preSessionKey is the CSRF key of a visitor not signed in (the sign-in
// forms): a random value in its own HttpOnly cookie, set on first sight.
func (c *Console) preSessionKey(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(preSessionCookie); err == nil && strings.HasPrefix(ck.Value, "acp_") && len(ck.Value) < 100 {
		return ck.Value
	}
	v := newToken("acp_")
	http.SetCookie(w, &http.Cookie{Name: preSessionCookie, Value: v, Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secureRequest(r)})
	return v
}

// csrfToken is the token forms and htmx requests send back: derived from
// the session's secret (or the pre-session cookie), which only the
// browser's HttpOnly cookie holds, so another site can neither read nor
// forge it.
func csrfToken(key string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte("agentry console csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CSRFField and CSRFHeader carry the token: the field in forms, the header
// in htmx requests (set once on <body> with hx-headers).
const (
	CSRFField  = "csrf"
	CSRFHeader = "X-CSRF-Token"
)

var errCSRF = errors.New("csrf")

// checkCSRF accepts a state-changing request only from this console: the
// browser's Origin (when sent) must be ours, and the token must match.
func checkCSRF(w http.ResponseWriter, r *http.Request, key string) error {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return errCSRF
		}
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return errCSRF
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" {
		got = formValueNoParse(w, r)
	}
	if key == "" || got == "" || !hmac.Equal([]byte(got), []byte(csrfToken(key))) {
		return errCSRF
	}
	return nil
}

// formValueNoParse reads the csrf field of a urlencoded or multipart
// form, bounding what is read (maxFormBytes; uploads use their own bound).
func formValueNoParse(w http.ResponseWriter, r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "multipart/form-data") {
		r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
		if err := r.ParseMultipartForm(maxMemoryForm); err != nil {
			return ""
		}
		return r.FormValue(CSRFField)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return ""
	}
	return r.PostFormValue(CSRFField)
}

const (
	maxFormBytes  = 2 << 20  // a form: a definition, a text input
	maxMemoryForm = 10 << 20 // multipart parts held in memory; the rest spills to disk
	// maxUploadBytes bounds a multipart form (a run's input file, an
	// agent export); the API applies its own, possibly smaller, limits.
	maxUploadBytes = 100 << 20
)
