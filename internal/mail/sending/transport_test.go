package sending

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/mail/resolver"
)

var testRaw = []byte("From: a@sender.test\r\nTo: b@example.test\r\nSubject: hi\r\n\r\nbody\r\n")

// Direct delivery finds the recipient domain's MX through the resolver
// and hands the message to it; private exchangers are refused unless
// allowed.
func TestDirectMX(t *testing.T) {
	sink := mailtest.StartSink(t, "", "")
	dnsSrv := mailtest.StartDNS(t)
	dnsSrv.Add(t, "example.test. 60 IN MX 10 mx1.example.test.", "mx1.example.test. 60 IN A 127.0.0.1")
	_, port, _ := net.SplitHostPort(sink.Addr)
	res := resolver.New(dnsSrv.Addr)
	m := &DirectMX{Resolver: res, Port: port, HELO: "agent.test", AllowPrivate: true}
	if err := m.Deliver(context.Background(), "a@sender.test", "b@example.test", testRaw); err != nil {
		t.Fatal(err)
	}
	if got := sink.Wait(t, 1); got[0].To[0] != "b@example.test" {
		t.Fatalf("%+v", got)
	}
	var perm *PermanentError
	if err := m.Deliver(context.Background(), "a@sender.test", "bounce@example.test", testRaw); !errors.As(err, &perm) || perm.Code != 550 {
		t.Errorf("bounce: %v", err)
	}
	m.AllowPrivate = false
	if err := m.Deliver(context.Background(), "a@sender.test", "b@example.test", testRaw); !errors.Is(err, engine.ErrForbiddenAddress) {
		t.Errorf("private MX: %v", err)
	}
	dnsSrv.Add(t, "nullmx.test. 60 IN MX 0 .")
	if err := m.Deliver(context.Background(), "a@sender.test", "b@nullmx.test", testRaw); !errors.As(err, &perm) {
		t.Errorf("null MX: %v", err)
	}
}

// The relay's AUTH is used, and wrong credentials are a permanent failure.
func TestRelayAuth(t *testing.T) {
	sink := mailtest.StartSink(t, "u", "right")
	r, err := ParseRelay("smtp://u:wrong@"+sink.Addr, "agent.test")
	if err != nil {
		t.Fatal(err)
	}
	var perm *PermanentError
	if err := r.Deliver(context.Background(), "a@sender.test", "b@example.test", testRaw); !errors.As(err, &perm) {
		t.Fatalf("wrong password: %v", err)
	}
	r, _ = ParseRelay("smtp://u:right@"+sink.Addr, "agent.test")
	if err := r.Deliver(context.Background(), "a@sender.test", "b@example.test", testRaw); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"http://x", "smtp://", "::"} {
		if _, err := ParseRelay(bad, "h"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
