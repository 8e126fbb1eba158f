// Package sso owns single sign-on for Agentry clients: the profiles in the
// configuration file (~/.service/config), how a profile's domain and region
// name an OIDC issuer, the on-disk token cache, refreshing tokens before they
// expire, and the two login flows (authorization code with PKCE on a
// loopback redirect, and the device flow).
//
// It depends on nothing of the server, so programs outside this repository
// can import it along with the client package.
package sso
