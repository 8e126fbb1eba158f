package sso

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// RegionPlaceholder in a domain is replaced by the profile's region.
const RegionPlaceholder = "{region}"

// ErrNotConfigured is returned when no identity provider is configured.
var ErrNotConfigured = errors.New("SSO is not configured: run `agentry configure sso` or set " + EnvDomain + " and " + EnvClientID)

// Issuer maps the profile's domain and region to the OIDC issuer URL that
// discovery starts from. The rule is deliberately small:
//
//   - every "{region}" in the domain is replaced by the region (an error
//     when the domain has the placeholder and no region is set);
//   - a domain with a scheme (https://login.example.com/realms/acme) is the
//     issuer as written;
//   - a bare host, optionally with a path (login.example.com,
//     login.example.com/realms/acme), gets https:// in front.
//
// A region with no placeholder in the domain does not change the issuer.
func (p Profile) Issuer() (string, error) {
	if !p.Configured() {
		return "", ErrNotConfigured
	}
	return IssuerURL(p.Domain, p.Region)
}

// IssuerURL applies the mapping described at Profile.Issuer.
func IssuerURL(domain, region string) (string, error) {
	d := strings.TrimSpace(domain)
	if d == "" {
		return "", ErrNotConfigured
	}
	if strings.Contains(d, RegionPlaceholder) {
		if region == "" {
			return "", fmt.Errorf("sso domain %q has %s but no region is set (%s or %s)", d, RegionPlaceholder, KeyRegion, EnvRegion)
		}
		d = strings.ReplaceAll(d, RegionPlaceholder, region)
	}
	if !strings.Contains(d, "://") {
		d = "https://" + d
	}
	u, err := url.Parse(d)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("sso domain %q is neither a host nor an http(s) URL", domain)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("sso domain %q must not carry a query or fragment", domain)
	}
	return d, nil
}
