package outbound

import (
	"encoding/binary"
	"net/netip"
)

// Public reports whether ip is a globally routable unicast address that an
// outbound request of a tenant may reach. IPv6 forms that carry an IPv4
// address inside them (IPv4-mapped and IPv4-compatible addresses, 6to4,
// Teredo, IPv4-translated) are judged by the IPv4 address they lead to, so
// that ::127.0.0.1 or 2002:a00:1:: cannot reach what 127.0.0.1 or 10.0.0.1
// may not. Whole ranges that only lead inside a network (local-use NAT64,
// deprecated site-local) are refused outright.
func Public(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !publicUnicast(ip) {
		return false
	}
	if v4, ok := embeddedIPv4(ip); ok {
		return publicUnicast(v4)
	}
	return true
}

// publicUnicast judges one address by its own ranges only.
func publicUnicast(ip netip.Addr) bool {
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),  // documentation
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("240.0.0.0/4"), // reserved, and broadcast
	// NAT64 translates to any IPv4 address its gateway can reach, internal
	// ones included, and what it reaches depends on the gateway's network,
	// not on the embedded address alone: both prefixes are refused whole.
	netip.MustParsePrefix("64:ff9b::/96"),   // well-known NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("2001:10::/28"),   // ORCHID
}

// embeddedIPv4Forms are the IPv6 ranges whose addresses carry an IPv4
// address, and where in the address it sits.
var embeddedIPv4Forms = []struct {
	prefix  netip.Prefix
	extract func(b [16]byte) netip.Addr
}{
	{netip.MustParsePrefix("::/96"), lastFourBytes},           // IPv4-compatible ::a.b.c.d, deprecated
	{netip.MustParsePrefix("::ffff:0:0:0/96"), lastFourBytes}, // IPv4-translated ::ffff:0:a.b.c.d
	{netip.MustParsePrefix("2002::/16"), func(b [16]byte) netip.Addr { // 6to4 2002:AABB:CCDD::/48
		return netip.AddrFrom4([4]byte(b[2:6]))
	}},
	{netip.MustParsePrefix("2001::/32"), func(b [16]byte) netip.Addr { // Teredo: the client, inverted, last
		var v4 [4]byte
		binary.BigEndian.PutUint32(v4[:], ^binary.BigEndian.Uint32(b[12:16]))
		return netip.AddrFrom4(v4)
	}},
}

func lastFourBytes(b [16]byte) netip.Addr { return netip.AddrFrom4([4]byte(b[12:16])) }

// embeddedIPv4 returns the IPv4 address an IPv6 address of a transition
// form leads to.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	for _, m := range embeddedIPv4Forms {
		if m.prefix.Contains(ip) {
			return m.extract(b), true
		}
	}
	return netip.Addr{}, false
}
