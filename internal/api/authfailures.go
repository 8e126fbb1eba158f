package api

import (
	"math"
	"net"
	"net/http"
	"strconv"
)

// Failed authentication attempts are limited per client address, so that a
// client guessing keys or replaying expired tokens is slowed down before it
// reaches the credential lookups. Only failures take from the bucket:
// requests whose credentials verify are never refused by it, even from an
// address whose failures are being answered 429.
//
// The address is the TCP peer (RemoteAddr). Behind a proxy every client
// shares the proxy's address; X-Forwarded-For is not trusted, since any
// client could set it to escape the limit.

// clientAddress is the bucket key of a request's peer: its IP, or for IPv6
// its /64, which one client typically holds whole.
func clientAddress(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// failedAuthentication records a failed attempt from remoteAddr and, when
// the address has used up its allowance, answers the error to send instead
// of a 401: a 429 with Retry-After.
func (s *Server) failedAuthentication(remoteAddr string) *Error {
	ok, wait := s.authFailures.allow(clientAddress(remoteAddr))
	if ok {
		return nil
	}
	e := Fail(http.StatusTooManyRequests, "Too many failed authentication attempts from this address; retry after the time in Retry-After")
	e.Headers = http.Header{"Retry-After": {strconv.Itoa(int(math.Max(1, math.Ceil(wait.Seconds()))))}}
	return e
}
