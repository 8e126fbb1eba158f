package version

import (
	"strings"
	"testing"
)

func TestParseHeaderNames(t *testing.T) {
	got, err := ParseHeaderNames(" x-custom-version, X-Other-Version ,,Service-Version, X-CUSTOM-VERSION")
	if err != nil || strings.Join(got, ",") != "X-Custom-Version,X-Other-Version" {
		t.Fatalf("%q %v", got, err)
	}
	if got, err := ParseHeaderNames(""); err != nil || len(got) != 0 {
		t.Fatalf("empty: %q %v", got, err)
	}
	for _, bad := range []string{"X Custom", "X-Version:", "Ünicode", strings.Repeat("a", 129),
		"a,b,c,d,e,f,g,h,i"} {
		if _, err := ParseHeaderNames(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFromRequest(t *testing.T) {
	h := map[string]string{"X-Custom-Version": "2026-07-27"}
	get := func(n string) string { return h[n] }
	if v, n := FromRequest(get, nil); v != "" || n != Header {
		t.Errorf("without extra names: %q %q", v, n)
	}
	if v, n := FromRequest(get, []string{"X-Other", "X-Custom-Version"}); v != "2026-07-27" || n != "X-Custom-Version" {
		t.Errorf("extra name: %q %q", v, n)
	}
	h[Header] = "2026-07-01"
	if v, n := FromRequest(get, []string{"X-Custom-Version"}); v != "2026-07-01" || n != Header {
		t.Errorf("Service-Version comes first: %q %q", v, n)
	}
}

func FuzzParseHeaderNames(f *testing.F) {
	f.Add("X-Custom-Version, X-Other")
	f.Add(",,\x00")
	f.Fuzz(func(t *testing.T, s string) {
		names, err := ParseHeaderNames(s)
		if err != nil {
			return
		}
		if len(names) > MaxExtraHeaders {
			t.Fatalf("%d names", len(names))
		}
		for _, n := range names {
			if !validFieldName(n) || n == Header {
				t.Fatalf("bad name %q from %q", n, s)
			}
		}
	})
}
