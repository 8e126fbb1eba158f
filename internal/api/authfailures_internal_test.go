package api

import "testing"

func TestClientAddress(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"203.0.113.7:51234":          "203.0.113.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::9]:80":  "2001:db8:1:2::/64",
		"[::ffff:203.0.113.7]:1":     "203.0.113.7",
		"not an address":             "not an address",
	} {
		if got := clientAddress(in); got != want {
			t.Errorf("clientAddress(%q) = %q, want %q", in, got, want)
		}
	}
}
