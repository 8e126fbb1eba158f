package cli

import (
	"errors"
	"io"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
)

// authStatus is what `auth status` (and login, logout) report.
type authStatus struct {
	Profile     string     `json:"profile"`
	ConfigFile  string     `json:"config_file"`
	Credential  string     `json:"credential"`
	Issuer      string     `json:"issuer,omitempty"`
	ClientID    string     `json:"client_id,omitempty"`
	Region      string     `json:"region,omitempty"`
	AccountID   string     `json:"account_id,omitempty"`
	LoggedIn    bool       `json:"logged_in"`
	Subject     string     `json:"subject,omitempty"`
	Email       string     `json:"email,omitempty"`
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	Refreshable bool       `json:"refreshable"`
	Problem     string     `json:"problem,omitempty"`
}

func (a *App) status(dir string, p sso.Profile) *authStatus {
	st := &authStatus{Profile: p.Name, ConfigFile: sso.ConfigPath(dir), ClientID: p.ClientID, Region: p.Region, AccountID: p.AccountID}
	if c, err := a.Client(); err == nil {
		st.Credential = c.CredentialSource()
	} else {
		st.Credential, st.Problem = client.SourceNone, err.Error()
	}
	issuer, err := p.Issuer()
	if err != nil {
		if p.Configured() {
			st.Problem = err.Error()
		}
		return st
	}
	st.Issuer = issuer
	tok, err := sso.CacheFor(dir).Load(issuer, p.ClientID)
	if err != nil {
		if !errors.Is(err, sso.ErrNotLoggedIn) {
			st.Problem = err.Error()
		}
		return st
	}
	st.fromToken(tok)
	return st
}

// fromToken fills the login fields. A login is valid while its access
// token is, or while a refresh token can renew it.
func (st *authStatus) fromToken(t *sso.Token) {
	claims := t.Claims()
	st.Subject, _ = claims["sub"].(string)
	st.Email, _ = claims["email"].(string)
	if !t.Expiry.IsZero() {
		exp := t.Expiry
		st.ExpiresAt = &exp
	}
	st.Refreshable = t.RefreshToken != ""
	st.LoggedIn = !t.Expired(time.Now()) || st.Refreshable
}

func (st *authStatus) table(w io.Writer) error {
	expires := "-"
	if st.ExpiresAt != nil {
		expires = st.ExpiresAt.Local().Format(time.RFC1123)
	}
	loggedIn := "no"
	if st.LoggedIn {
		loggedIn = "yes"
	}
	pairs := [][2]string{
		{"Profile", st.Profile}, {"Config file", st.ConfigFile}, {"Credential in use", st.Credential},
		{"Issuer", orNone(st.Issuer)}, {"Client ID", orNone(st.ClientID)}, {"Region", orNone(st.Region)},
		{"Account ID", orNone(st.AccountID)}, {"Logged in", loggedIn}, {"Subject", orNone(st.Subject)},
		{"Email", orNone(st.Email)}, {"Access token expires", expires},
	}
	if st.Problem != "" {
		pairs = append(pairs, [2]string{"Problem", st.Problem})
	}
	return writeFields(w, pairs)
}
