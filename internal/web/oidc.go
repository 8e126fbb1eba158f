package web

// OIDCConfig enables single sign-on on the sign-in page (authorization-code
// flow with PKCE against the issuer the API trusts).
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	RedirectURL  string // the public URL of /console/signin/sso/callback
}
