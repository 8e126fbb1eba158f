package client

import (
	"fmt"
	"net/http"
)

// headerEntry is one header set by an option, a default header or a call
// option. Entries are kept in the order given and merged only when a
// request is built, so that "the last one wins" holds across every source.
type headerEntry struct{ name, value string }

// mergeHeaders applies entries to h in order. Names are canonicalised, so
// "service-version" and "Service-Version" are one header: the later entry
// replaces the earlier and only one line reaches the wire. An empty value
// removes the header.
func mergeHeaders(h http.Header, entries []headerEntry) {
	for _, e := range entries {
		if e.value == "" {
			h.Del(e.name)
			continue
		}
		h.Set(e.name, e.value)
	}
}

// validateHeaders checks the merged headers; today that is Service-Version,
// validated the same way whichever source set it.
func validateHeaders(h http.Header, allowUnknown bool) error {
	vs := h.Values(VersionHeader)
	if len(vs) == 0 {
		return nil
	}
	if len(vs) > 1 { // only possible if a caller edited the map by hand
		return &VersionError{Version: fmt.Sprint(vs), Reason: "sent more than once"}
	}
	return checkVersion(vs[0], allowUnknown)
}

// validHeaderName reports whether name is an RFC 9110 token, which is what
// lets canonicalisation merge differently cased spellings of one header.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '!' || c == '#' || c == '$' || c == '%' || c == '&' || c == '\'' ||
			c == '*' || c == '+' || c == '.' || c == '^' || c == '_' || c == '`' || c == '|' || c == '~':
		default:
			return false
		}
	}
	return true
}
