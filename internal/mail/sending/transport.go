package sending

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/agentry/agentry/internal/engine"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Transport hands one signed copy to the next hop.
type Transport interface {
	Deliver(ctx context.Context, from, rcpt string, raw []byte) error
}

// PermanentError is a refusal retrying cannot change (a 5xx reply): the
// delivery is recorded as bounced.
type PermanentError struct {
	Code int
	Err  error
}

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// classify turns an SMTP reply error into a PermanentError when it is one.
func classify(err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) && se.Code >= 500 && se.Code < 600 {
		return &PermanentError{Code: se.Code, Err: err}
	}
	return err
}

// Code is an error's SMTP reply code, 0 when it has none.
func Code(err error) int {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// Relay sends everything through one smarthost: smtp://[user:pass@]host:port
// (STARTTLS when the server offers it; credentials are only sent over TLS
// or to a loopback relay) or smtps://… (TLS from the first byte).
// ?insecure_skip_verify=true accepts a relay's self-signed certificate.
type Relay struct {
	addr       string
	implicit   bool
	user, pass string
	tls        *tls.Config
	helo       string
	timeout    time.Duration
}

// ParseRelay reads a relay URL.
func ParseRelay(raw, helo string) (*Relay, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("SERVICE_SMTP_RELAY_URL: %v", err)
	}
	r := &Relay{helo: helo, timeout: 30 * time.Second}
	switch u.Scheme {
	case "smtp":
	case "smtps":
		r.implicit = true
	default:
		return nil, fmt.Errorf("SERVICE_SMTP_RELAY_URL: scheme %q: want smtp:// or smtps://", u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return nil, errors.New("SERVICE_SMTP_RELAY_URL: no host")
	}
	if port == "" {
		port = map[bool]string{false: "587", true: "465"}[r.implicit]
	}
	r.addr = net.JoinHostPort(host, port)
	if u.User != nil {
		r.user = u.User.Username()
		r.pass, _ = u.User.Password()
	}
	r.tls = &tls.Config{ServerName: host, InsecureSkipVerify: u.Query().Get("insecure_skip_verify") == "true"} //nolint:gosec // operator's explicit choice
	return r, nil
}

// Deliver implements Transport.
func (r *Relay) Deliver(ctx context.Context, from, rcpt string, raw []byte) error {
	d := net.Dialer{Timeout: r.timeout}
	dial := func() (net.Conn, error) {
		if r.implicit {
			return (&tls.Dialer{NetDialer: &d, Config: r.tls}).DialContext(ctx, "tcp", r.addr)
		}
		return d.DialContext(ctx, "tcp", r.addr)
	}
	err := send(ctx, dial, r.helo, r.tls, !r.implicit, r.user, r.pass, from, rcpt, raw, r.timeout)
	if err != nil {
		return fmt.Errorf("relay %s: %w", r.addr, err)
	}
	return nil
}

var errNoStartTLS = errors.New("smtp: server doesn't support STARTTLS")

// send runs one SMTP transaction: EHLO, STARTTLS when wanted and offered,
// AUTH when credentials are given, then MAIL, RCPT and DATA.
func send(ctx context.Context, dial func() (net.Conn, error), helo string, tlsCfg *tls.Config, starttls bool, user, pass, from, rcpt string, raw []byte, timeout time.Duration) error {
	conn, err := dial()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer func() { stop() }()
	conn.SetDeadline(time.Now().Add(timeout))
	var c *smtp.Client
	if starttls {
		// go-smtp upgrades only as the client opens; a server without
		// STARTTLS is asked again in plain text.
		c, err = smtp.NewClientStartTLS(conn, tlsCfg)
		if err != nil && err.Error() == errNoStartTLS.Error() {
			stop()
			if conn, err = dial(); err != nil {
				return err
			}
			stop = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
			conn.SetDeadline(time.Now().Add(timeout))
			c = smtp.NewClient(conn)
		} else if err != nil {
			return classify(fmt.Errorf("starttls: %w", err))
		}
	} else {
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	if err := c.Hello(helo); err != nil {
		return classify(err)
	}
	_, isTLS := c.TLSConnectionState()
	if user != "" {
		if !isTLS && !loopback(conn.RemoteAddr()) {
			return &PermanentError{Err: errors.New("the relay offers no TLS; refusing to send its credentials in clear")}
		}
		if err := c.Auth(sasl.NewPlainClient("", user, pass)); err != nil {
			return classify(fmt.Errorf("auth: %w", err))
		}
	}
	if err := c.Mail(from, nil); err != nil {
		return classify(err)
	}
	if err := c.Rcpt(rcpt, nil); err != nil {
		return classify(err)
	}
	w, err := c.Data()
	if err != nil {
		return classify(err)
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return classify(err)
	}
	_ = c.Quit()
	return nil
}

func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// DirectMX delivers to the recipient domain's mail exchangers, best
// preference first (the domain itself when it has no MX), with
// opportunistic STARTTLS. Non-public addresses are refused unless
// AllowPrivate, so a tenant cannot aim mail at internal hosts.
type DirectMX struct {
	Resolver     *net.Resolver
	Port         string // "25"; tests use another
	HELO         string
	AllowPrivate bool
	Timeout      time.Duration
}

// Deliver implements Transport.
func (m *DirectMX) Deliver(ctx context.Context, from, rcpt string, raw []byte) error {
	at := strings.LastIndexByte(rcpt, '@')
	if at < 0 {
		return &PermanentError{Err: fmt.Errorf("recipient %q has no domain", rcpt)}
	}
	domain := rcpt[at+1:]
	mxs, err := m.Resolver.LookupMX(ctx, domain)
	hosts := []string{}
	switch {
	case err == nil && len(mxs) == 1 && mxs[0].Host == ".":
		return &PermanentError{Err: fmt.Errorf("domain %s accepts no mail (null MX)", domain)}
	case err == nil:
		sort.SliceStable(mxs, func(i, j int) bool { return mxs[i].Pref < mxs[j].Pref })
		for _, mx := range mxs {
			hosts = append(hosts, strings.TrimSuffix(mx.Host, "."))
		}
	default:
		var de *net.DNSError
		if !errors.As(err, &de) || !de.IsNotFound {
			return fmt.Errorf("mx lookup %s: %w", domain, err)
		}
		hosts = append(hosts, domain) // implicit MX (RFC 5321 §5.1)
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	d := net.Dialer{Timeout: 20 * time.Second, Resolver: m.Resolver}
	if !m.AllowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, _ := net.SplitHostPort(address)
			ip, err := netip.ParseAddr(host)
			if err != nil || !engine.Public(ip) {
				return fmt.Errorf("%w: %s", engine.ErrForbiddenAddress, host)
			}
			return nil
		}
	}
	var last error
	for _, h := range hosts[:min(len(hosts), 5)] {
		addr := net.JoinHostPort(h, m.Port)
		dial := func() (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
		//nolint:gosec // opportunistic TLS between MTAs does not authenticate the peer (RFC 3207 §4.1)
		err := send(ctx, dial, m.HELO, &tls.Config{ServerName: h, InsecureSkipVerify: true}, true, "", "", from, rcpt, raw, timeout)
		var perm *PermanentError
		if err == nil || errors.As(err, &perm) {
			return err
		}
		last = err
	}
	return fmt.Errorf("no mail exchanger of %s took the message: %w", domain, last)
}
