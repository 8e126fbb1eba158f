package engine

import (
	"net/netip"

	"github.com/agentry/agentry/internal/outbound"
)

// Public reports whether ip is a globally routable unicast address that an
// outbound request of a tenant may reach (see outbound.Public, which owns
// the ranges).
func Public(ip netip.Addr) bool { return outbound.Public(ip) }
