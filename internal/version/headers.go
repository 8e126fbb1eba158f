package version

import (
	"fmt"
	"net/http"
	"strings"
)

// MaxExtraHeaders bounds how many other names the version header may be
// accepted under (SERVICE_VERSION_HEADERS).
const MaxExtraHeaders = 8

// ParseHeaderNames reads a comma-separated list of extra header names under
// which a request may send its version, exactly as it would send Header:
// clients written for other deployments of the API send it under their own
// name. Names are returned in canonical form, without duplicates or Header
// itself; a name that is not a valid HTTP header field name is an error.
func ParseHeaderNames(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{Header: true}
	for _, raw := range strings.Split(list, ",") {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		if !validFieldName(name) {
			return nil, fmt.Errorf("version header %q is not a valid HTTP header name", name)
		}
		name = http.CanonicalHeaderKey(name)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	if len(out) > MaxExtraHeaders {
		return nil, fmt.Errorf("%d extra version headers; at most %d", len(out), MaxExtraHeaders)
	}
	return out, nil
}

// FromRequest finds the version a request sent: under Header, else under the
// first of extra that is present. It returns the value and the name it came
// under ("" and Header when none was sent).
func FromRequest(get func(name string) string, extra []string) (value, name string) {
	if v := get(Header); v != "" {
		return v, Header
	}
	for _, n := range extra {
		if v := get(n); v != "" {
			return v, n
		}
	}
	return "", Header
}

// validFieldName reports whether s is an RFC 9110 token, at most 128 bytes.
func validFieldName(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}
