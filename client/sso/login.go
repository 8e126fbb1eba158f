package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Flow selects how a login proves the user's identity.
type Flow string

const (
	// FlowAuto uses the browser flow, or the device flow when no browser
	// can be opened (LoginOptions.OpenURL is nil) and the provider offers it.
	FlowAuto Flow = "auto"
	// FlowBrowser is the authorization code flow with PKCE and a loopback
	// redirect (RFC 8252).
	FlowBrowser Flow = "browser"
	// FlowDevice is the device authorization grant (RFC 8628).
	FlowDevice Flow = "device"
)

// ErrDeviceUnsupported is returned for FlowDevice when the provider's
// discovery document has no device_authorization_endpoint.
var ErrDeviceUnsupported = errors.New("the identity provider does not advertise a device_authorization_endpoint")

// LoginOptions configure a login.
type LoginOptions struct {
	Profile   Profile // must be Configured
	ConfigDir string  // where the token cache lives
	Flow      Flow    // FlowAuto when empty
	// OpenURL opens a URL in the user's browser. nil means no browser can
	// be opened: the URL is only printed.
	OpenURL func(string) error
	// Out receives the instructions for the user (the URL to visit, the
	// device code). io.Discard when nil.
	Out io.Writer
	// ListenAddr is the loopback address of the redirect listener;
	// 127.0.0.1:0 (any free port) when empty. Providers that require an
	// exact redirect URI registration need a fixed port here.
	ListenAddr string
	HTTPClient *http.Client  // for the provider's endpoints
	Timeout    time.Duration // how long to wait for the user; 5 minutes when zero
}

// Login runs the selected flow and caches the token it obtains.
func Login(ctx context.Context, o LoginOptions) (*Token, error) {
	issuer, err := o.Profile.Issuer()
	if err != nil {
		return nil, err
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	p, err := Discover(ctx, issuer, o.HTTPClient)
	if err != nil {
		return nil, err
	}
	flow := o.Flow
	if flow == "" || flow == FlowAuto {
		flow = FlowBrowser
		if o.OpenURL == nil && p.SupportsDevice() {
			flow = FlowDevice
		}
	}
	var t *Token
	switch flow {
	case FlowBrowser:
		t, err = loginBrowser(ctx, p, o)
	case FlowDevice:
		if !p.SupportsDevice() {
			return nil, ErrDeviceUnsupported
		}
		t, err = loginDevice(ctx, p, o)
	default:
		return nil, fmt.Errorf("unknown login flow %q (auto, browser or device)", flow)
	}
	if err != nil {
		return nil, err
	}
	if err := CacheFor(o.ConfigDir).Save(t); err != nil {
		return nil, fmt.Errorf("save token: %w", err)
	}
	return t, nil
}

// Logout forgets the cached token of a profile's provider.
func Logout(configDir string, p Profile) error {
	issuer, err := p.Issuer()
	if err != nil {
		return err
	}
	return CacheFor(configDir).Delete(issuer, p.ClientID)
}

func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
