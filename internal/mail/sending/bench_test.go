package sending_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/mail/dkimkey"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/riverqueue/river"
)

// cpuTime is the process's user+system CPU time: on a loaded machine it
// says what the work costs, where wall time says how long it waited.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type fixedIdentity struct{ id sending.Identity }

func (f fixedIdentity) Sender(context.Context, string) (sending.Identity, error) { return f.id, nil }

// BenchmarkSendEmailStep measures what a send_email step adds to a run for
// one recipient: the opt-out check, building and DKIM-signing the copy
// (RSA-2048), and the transaction that stores it with its delivery job.
// Delivery itself runs afterwards in the job, so the relay's time is not
// part of the run. Run on each database the environment provides.
func BenchmarkSendEmailStep(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, d)
			u, a, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "bench", OpeningCredits: 1})
			_ = u
			if err != nil {
				b.Fatal(err)
			}
			q, err := jobs.Open(ctx, db, river.NewWorkers(), jobs.Config{})
			if err != nil {
				b.Fatal(err)
			}
			key, err := dkimkey.Generate()
			if err != nil {
				b.Fatal(err)
			}
			s, err := sending.New(ctx, db, fixedIdentity{sending.Identity{Domain: "agent.test", Selector: dkimkey.Selector, Signer: key}},
				nil, sending.Config{Queue: q, PublicURL: func() string { return "https://agentry.example" }})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				_, err := s.Send(ctx, sending.Mail{AccountID: a.ID, AgentID: "01a20000-0000-7000-8000-000000000001", FromName: "Reporter",
					RunID: store.NewID(), StepKey: "mail", To: []string{"reader@example.test"}, Subject: "Weekly report",
					Body: "Here is the report of the week.\n\nSales went up.", AgentMail: true})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
