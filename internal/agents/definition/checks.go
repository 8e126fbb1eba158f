package definition

import (
	"mime"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
)

// Value checks for particular fields. Strings holding a placeholder are only
// checked at run time, once rendered.

func hasPlaceholder(s string) bool { return strings.Contains(s, "{{") }

func checkAddresses(c *checker, v any, path string) {
	check := func(s, p string) {
		if hasPlaceholder(s) {
			return
		}
		addr, err := mail.ParseAddress(s)
		if err != nil {
			c.errorf(CodeInvalidValue, p, "%q is not an e-mail address", s)
			return
		}
		if placeholderHost(addr.Address[strings.LastIndexByte(addr.Address, '@')+1:]) {
			c.warnf(CodePlaceholder, p, "%s is a placeholder address; replace it before running", addr.Address)
		}
	}
	switch t := v.(type) {
	case string:
		check(t, path)
	case []any:
		if len(t) == 0 {
			c.warnf(CodeUnusedValue, path, "empty recipient list")
		}
		for i, e := range t {
			if s, ok := e.(string); ok {
				check(s, indexPath(path, i))
			}
		}
	}
}

func checkWebhookURL(c *checker, v any, path string) {
	s, ok := v.(string)
	if !ok || hasPlaceholder(s) {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.errorf(CodeInvalidValue, path, "%q is not an absolute http(s) URL", s)
		return
	}
	if u.Scheme == "http" {
		c.warnf(CodeInsecureURL, path, "plain http sends the payload unencrypted")
	}
	if placeholderHost(u.Hostname()) {
		c.warnf(CodePlaceholder, path, "%s is a placeholder host; replace it before running", u.Hostname())
	}
}

func checkEndpointURL(c *checker, v any, path string) {
	s, ok := v.(string)
	if !ok || s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.errorf(CodeInvalidValue, path, "%q is not an absolute http(s) URL", s)
	}
}

// placeholderHost reports the reserved example domains (RFC 2606), which
// templates use until the author fills in a real destination.
func placeholderHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for _, d := range []string{"example.com", "example.net", "example.org", "example"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

var secretHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "x-api-key": true,
	"api-key": true, "x-auth-token": true, "cookie": true,
}

func checkHeaders(c *checker, v any, path string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, hv := range m {
		p := fieldPath(path, k)
		s, ok := hv.(string)
		if !ok {
			c.errorf(CodeInvalidType, p, "header values must be strings")
			continue
		}
		if secretHeaders[strings.ToLower(k)] && s != "" && !hasPlaceholder(s) {
			c.warnf(CodeInlineSecret, p, "credential written into the definition; it is exported in clear")
		}
	}
}

func checkMediaType(c *checker, v any, path string) {
	s, ok := v.(string)
	if !ok || s == "" || hasPlaceholder(s) {
		return
	}
	mt, _, err := mime.ParseMediaType(s)
	if err != nil || !strings.Contains(mt, "/") {
		c.errorf(CodeInvalidValue, path, "%q is not a media type like text/plain", s)
	}
}

// bucketName follows the S3 naming rules shared by the compatible stores.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

func checkBucket(c *checker, v any, path string) {
	s, ok := v.(string)
	if !ok || s == "" || hasPlaceholder(s) {
		return
	}
	if !bucketName.MatchString(s) || strings.Contains(s, "..") {
		c.errorf(CodeInvalidValue, path, "%q is not a valid bucket name (3–63 lowercase letters, digits, dots and hyphens)", s)
	}
}
