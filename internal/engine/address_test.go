package engine_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/agentry/agentry/internal/engine"
)

func TestPublicAddresses(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"10.1.2.3", false},
		{"169.254.169.254", false}, // cloud metadata
		{"100.64.0.1", false},
		{"::1", false},
		{"fe80::1%eth0", false},
		{"fc00::1", false},
		// IPv4-mapped.
		{"::ffff:127.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::ffff:8.8.8.8", true},
		// IPv4-compatible (deprecated).
		{"::127.0.0.1", false},
		{"::10.0.0.1", false},
		{"::169.254.169.254", false},
		{"::192.168.1.1", false},
		{"::8.8.8.8", true},
		// IPv4-translated.
		{"::ffff:0:127.0.0.1", false},
		{"::ffff:0:8.8.8.8", true},
		// 6to4: 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD.
		{"2002:7f00:1::1", false},    // 127.0.0.1
		{"2002:a00:1::", false},      // 10.0.0.1
		{"2002:a9fe:a9fe::1", false}, // 169.254.169.254
		{"2002:c0a8:101::", false},   // 192.168.1.1
		{"2002:808:808::1", true},    // 8.8.8.8
		// NAT64, well-known and local-use, whatever they embed.
		{"64:ff9b::7f00:1", false},
		{"64:ff9b::a00:1", false},
		{"64:ff9b::808:808", false},
		{"64:ff9b:1::a00:1", false},
		{"64:ff9b:1:ffff::1", false},
		// Deprecated site-local.
		{"fec0::1", false},
		{"feff::1", false},
		// Teredo: the client address is the last 32 bits inverted.
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", false}, // client 127.0.0.1
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", true},  // client 8.8.8.8
		{"2001:db8::1", false},
	} {
		ip := netip.MustParseAddr(tc.addr)
		if got := engine.Public(ip); got != tc.public {
			t.Errorf("Public(%s) = %v, want %v", tc.addr, got, tc.public)
		}
	}
}

// TestWebhookRefusesEmbeddedIPv4 dials an IPv4-compatible loopback
// address: the guard refuses it before any packet is sent.
func TestWebhookRefusesEmbeddedIPv4(t *testing.T) {
	for _, host := range []string{"[::127.0.0.1]", "[2002:7f00:1::1]", "[::ffff:127.0.0.1]", "[fec0::1]"} {
		def := `{"child_steps":[{"id":"hook","step_type":"webhook_call","url":"http://` + host + `:9/in"}]}`
		if _, err := run(t, engine.New(engine.Config{}), def, "hi", newJournal(), nil); !errors.Is(err, engine.ErrForbiddenAddress) {
			t.Errorf("%s: not refused by the guard: %v", host, err)
		}
	}
}

// FuzzPublic checks the guard against itself: every IPv6 form that embeds
// an IPv4 address is judged as that address is (NAT64 always refused), and
// nothing that Go classifies as non-global passes.
func FuzzPublic(f *testing.F) {
	f.Add([]byte{127, 0, 0, 1}, "::127.0.0.1")
	f.Add([]byte{10, 0, 0, 1}, "2002:a00:1::")
	f.Add([]byte{8, 8, 8, 8}, "64:ff9b::808:808")
	f.Add([]byte{169, 254, 1, 1}, "fec0::1")
	f.Fuzz(func(t *testing.T, v4 []byte, s string) {
		if ip, err := netip.ParseAddr(s); err == nil && engine.Public(ip) {
			u := ip.Unmap()
			if u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified() {
				t.Fatalf("Public(%s) for a non-global address", s)
			}
		}
		if len(v4) != 4 {
			return
		}
		a := netip.AddrFrom4([4]byte(v4))
		want := engine.Public(a)
		forms := map[string]netip.Addr{}
		var b [16]byte
		copy(b[12:], v4)
		forms["compatible"] = netip.AddrFrom16(b)
		b[10], b[11] = 0xff, 0xff
		forms["mapped"] = netip.AddrFrom16(b)
		b = [16]byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0}
		copy(b[12:], v4)
		forms["translated"] = netip.AddrFrom16(b)
		b = [16]byte{0x20, 0x02}
		copy(b[2:6], v4)
		b[15] = 1
		forms["6to4"] = netip.AddrFrom16(b)
		b = [16]byte{0x20, 0x01, 0, 0, 0x41, 0x36, 0xe3, 0x78}
		for i := range 4 {
			b[12+i] = ^v4[i]
		}
		forms["teredo"] = netip.AddrFrom16(b)
		for name, ip := range forms {
			if ip.Unmap() == (netip.AddrFrom16([16]byte{})) || ip.Unmap() == netip.IPv6Loopback() {
				continue // :: and ::1 are what they are, not IPv4
			}
			if got := engine.Public(ip); got != want {
				t.Fatalf("%s form %s of %s: Public = %v, the IPv4 address: %v", name, ip, a, got, want)
			}
		}
		b = [16]byte{0, 0x64, 0xff, 0x9b}
		copy(b[12:], v4)
		if engine.Public(netip.AddrFrom16(b)) {
			t.Fatalf("NAT64 %s passes", netip.AddrFrom16(b))
		}
	})
}
