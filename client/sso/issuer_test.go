package sso

import "testing"

func TestIssuerURL(t *testing.T) {
	cases := []struct{ domain, region, want string }{
		{"login.example.com", "", "https://login.example.com"},
		{"login.example.com", "eu", "https://login.example.com"}, // no placeholder: region unused
		{"login.example.com/realms/acme", "", "https://login.example.com/realms/acme"},
		{"https://idp.example.com/oauth2/default", "", "https://idp.example.com/oauth2/default"},
		{"http://127.0.0.1:5556/oidc", "", "http://127.0.0.1:5556/oidc"},
		{"auth.{region}.example.com", "eu-west-1", "https://auth.eu-west-1.example.com"},
		{"https://{region}.idp.example.com/{region}", "us", "https://us.idp.example.com/us"},
	}
	for _, c := range cases {
		got, err := IssuerURL(c.domain, c.region)
		if err != nil || got != c.want {
			t.Errorf("IssuerURL(%q, %q) = %q, %v; want %q", c.domain, c.region, got, err, c.want)
		}
	}
	for _, bad := range []struct{ domain, region string }{
		{"", ""}, {"auth.{region}.example.com", ""}, {"ftp://x.example", ""}, {"https://", ""}, {"x.example?a=b", ""},
	} {
		if got, err := IssuerURL(bad.domain, bad.region); err == nil {
			t.Errorf("IssuerURL(%q, %q) = %q, want an error", bad.domain, bad.region, got)
		}
	}
	if _, err := (Profile{Domain: "x.example"}).Issuer(); err != ErrNotConfigured {
		t.Fatalf("a profile without a client id is not configured: %v", err)
	}
}
