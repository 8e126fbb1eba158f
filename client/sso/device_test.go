package sso_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/client/sso"
)

// fakeDeviceProvider is an identity provider whose discovery document
// advertises a device_authorization_endpoint (mockoidc has none).
func fakeDeviceProvider(t *testing.T, polls *atomic.Int32) *httptest.Server {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"jwks_uri": srv.URL + "/jwks", "device_authorization_endpoint": srv.URL + "/device",
			"scopes_supported":         []string{"openid", "email", "offline_access"},
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("POST /device", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("client_id") != "device-cli" || !strings.Contains(r.Form.Get("scope"), "offline_access") {
			http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"device_code": "dev-123", "user_code": "WDJB-MJHT",
			"verification_uri": srv.URL + "/activate", "expires_in": 60, "interval": 1})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" || r.Form.Get("device_code") != "dev-123" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		polls.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "device-access", "refresh_token": "device-refresh",
			"token_type": "Bearer", "expires_in": 600})
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestDeviceLogin(t *testing.T) {
	var polls atomic.Int32
	srv := fakeDeviceProvider(t, &polls)
	out := newURLSniffer()
	dir := t.TempDir()
	// No browser and a provider offering the device flow: auto picks it.
	tok, err := sso.Login(context.Background(), sso.LoginOptions{
		Profile: sso.Profile{Name: "default", Domain: srv.URL, ClientID: "device-cli"}, ConfigDir: dir,
		Out: out, Timeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "device-access" || tok.RefreshToken != "device-refresh" || polls.Load() != 1 {
		t.Fatalf("token = %+v after %d polls", tok, polls.Load())
	}
	if !strings.Contains(out.buf.String(), "WDJB-MJHT") || !strings.Contains(out.buf.String(), srv.URL+"/activate") {
		t.Fatalf("the user was not told where to go:\n%s", out.buf.String())
	}
	if _, err := sso.CacheFor(dir).Load(srv.URL, "device-cli"); err != nil {
		t.Fatalf("device login not cached: %v", err)
	}
}
