package version

import "testing"

func TestParse(t *testing.T) {
	for _, ok := range []string{"2026-07-01", "2026-07-27", "1999-01-31", "2030-02-28"} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "2026-7-1", "2026-07-32", "2026-02-30", "latest", "2026-07-01T00:00:00Z", " 2026-07-01", "２０２６-07-01"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted a malformed version", bad)
		}
	}
}

func TestResolve(t *testing.T) {
	cases := []struct{ header, pin, want string }{
		{"", "", Default},
		{"", "2026-07-27", "2026-07-27"},
		{"2026-07-01", "2026-07-27", "2026-07-01"},
		{"2026-07-15", "", "2026-07-01"}, // between known versions: newest on or before
		{"2026-08-30", "", "2026-07-27"}, // after latest: latest
		{"2020-01-01", "2026-07-27", Default},
		{"", "2027-01-01", "2026-07-27"},
	}
	for _, c := range cases {
		if got := Resolve(c.header, c.pin); got != c.want {
			t.Errorf("Resolve(%q,%q) = %q, want %q", c.header, c.pin, got, c.want)
		}
	}
	if Strict(Default) || !Strict(Latest) {
		t.Fatal("strict envelope must start at the latest known version")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("2026-07-27")
	f.Add("9999-99-99")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err == nil && Snap(v) == "" {
			t.Fatal("valid date snapped to nothing")
		}
	})
}
