package mailtest

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Received is one message the sink accepted.
type Received struct {
	From string
	To   []string
	Data []byte
}

// Sink is an SMTP server on loopback that keeps what it is sent. Mail to
// a recipient whose local part is "bounce" is refused with 550; to
// "tempfail", with 451 the first TempFailures times.
type Sink struct {
	Addr         string
	User, Pass   string // when set, AUTH PLAIN is required
	TempFailures int

	mu       sync.Mutex
	got      []Received
	tempSeen int
	arrived  chan struct{}
}

// StartSink starts a sink until the test ends.
func StartSink(t testing.TB, user, pass string) *Sink {
	t.Helper()
	k, stop, err := ListenSink(user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return k
}

// ListenSink starts a sink on loopback outside a test (the benchmarks
// under bench/ relay to it); stop closes it.
func ListenSink(user, pass string) (k *Sink, stop func(), err error) {
	k = &Sink{User: user, Pass: pass, arrived: make(chan struct{}, 1000)}
	s := smtp.NewServer(k)
	s.Domain = "sink.test"
	s.AllowInsecureAuth = true
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.MaxMessageBytes = 10 << 20
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	k.Addr = l.Addr().String()
	go s.Serve(l)
	return k, func() { s.Close() }, nil
}

// SetTempFailures makes the next n RCPTs to tempfail@… answer 451.
func (k *Sink) SetTempFailures(n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.TempFailures, k.tempSeen = n, 0
}

// Messages returns what arrived so far.
func (k *Sink) Messages() []Received {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]Received(nil), k.got...)
}

// Wait returns once n messages have arrived, failing the test after 20s.
func (k *Sink) Wait(t testing.TB, n int) []Received {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if m := k.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-k.arrived:
		case <-deadline:
			t.Fatalf("sink: %d messages after 20s, want %d", len(k.Messages()), n)
		}
	}
}

// WaitTimeout returns once n messages have arrived or after d, with what
// arrived.
func (k *Sink) WaitTimeout(n int, d time.Duration) []Received {
	deadline := time.After(d)
	for {
		if m := k.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-k.arrived:
		case <-deadline:
			return k.Messages()
		}
	}
}

// NewSession implements smtp.Backend.
func (k *Sink) NewSession(*smtp.Conn) (smtp.Session, error) { return &sinkSession{k: k}, nil }

type sinkSession struct {
	k      *Sink
	authed bool
	from   string
	to     []string
}

func (s *sinkSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *sinkSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != s.k.User || pass != s.k.Pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *sinkSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.k.User != "" && !s.authed {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	s.from = from
	return nil
}

func (s *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	local := strings.ToLower(to[:max(strings.IndexByte(to, '@'), 0)])
	switch local {
	case "bounce":
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}
	case "tempfail":
		s.k.mu.Lock()
		defer s.k.mu.Unlock()
		if s.k.tempSeen < s.k.TempFailures {
			s.k.tempSeen++
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}
		}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.k.mu.Lock()
	s.k.got = append(s.k.got, Received{From: s.from, To: append([]string(nil), s.to...), Data: b})
	s.k.mu.Unlock()
	select {
	case s.k.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (s *sinkSession) Reset()        { s.from, s.to = "", nil }
func (s *sinkSession) Logout() error { return nil }
