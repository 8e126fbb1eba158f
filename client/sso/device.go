package sso

import (
	"context"
	"fmt"

	"golang.org/x/oauth2"
)

// loginDevice runs the device authorization grant: the user approves the
// login on any device with a browser while this process polls the token
// endpoint. It suits machines without a browser (SSH sessions, containers).
func loginDevice(ctx context.Context, p *Provider, o LoginOptions) (*Token, error) {
	cfg := oauth2Config(o.Profile.ClientID, o.Profile.ClientSecret,
		oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL, DeviceAuthURL: p.DeviceAuthURL}, "", p.Scopes())
	if o.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	}
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		return nil, fmt.Errorf("start the device login: %w", err)
	}
	fmt.Fprintf(o.Out, "To log in, visit\n\n  %s\n\nand enter the code\n\n  %s\n\n", da.VerificationURI, da.UserCode)
	if da.VerificationURIComplete != "" && o.OpenURL != nil {
		_ = o.OpenURL(da.VerificationURIComplete) // best effort; the code above still works
	}
	fmt.Fprintln(o.Out, "Waiting for the login to be approved…")
	ot, err := cfg.DeviceAccessToken(ctx, da)
	if err != nil {
		return nil, fmt.Errorf("device login: %w", err)
	}
	t := fromOAuth2(ot, p.Issuer, o.Profile.ClientID, p.TokenURL)
	if err := p.verifyIDToken(ctx, t.IDToken, o.Profile.ClientID, "", o.HTTPClient); err != nil {
		return nil, err
	}
	return t, nil
}
