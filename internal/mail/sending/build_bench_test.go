package sending

import (
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/mail/dkimkey"
	"github.com/emersion/go-message/mail"
)

// BenchmarkBuildAndSign is the CPU part of a send: one copy built and
// DKIM-signed with RSA-2048.
func BenchmarkBuildAndSign(b *testing.B) {
	key, err := dkimkey.Generate()
	if err != nil {
		b.Fatal(err)
	}
	id := Identity{Domain: "agent.test", Selector: dkimkey.Selector, Signer: key}
	d := draft{From: &mail.Address{Name: "Reporter", Address: "a@agent.test"}, To: []*mail.Address{{Address: "reader@example.test"}},
		Subject: "Weekly report", Body: "Here is the report of the week.\n\nSales went up.", Unsubscribe: "https://x/email/unsubscribe?token=abc",
		MessageIDLocal: "m1", Date: time.Now()}
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; i < b.N; i++ {
		if _, err := build(d, id); err != nil {
			b.Fatal(err)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := (ru1.Utime.Nano() + ru1.Stime.Nano()) - (ru0.Utime.Nano() + ru0.Stime.Nano())
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}
