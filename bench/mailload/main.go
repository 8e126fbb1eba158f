// Command mailload measures inbound mail: messages per second the SMTP
// listener accepts (250 OK, durably queued) from concurrent real SMTP
// clients on loopback, against an in-process agentry server on SQLite by
// default (PostgreSQL with -pg). It then checks none was lost: every
// accepted message has its row and its job, and with -role all (workers
// on) every one has started exactly one run.
//
//	go run ./bench/mailload                      # 3,000 messages, 16 clients, accept+queue only (workers off)
//	go run ./bench/mailload -role all -n 1000    # and process them: runs started, none twice
//
// Traffic goes to 127.0.0.1 only; counts and time are bounded.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/smtp"
	"os"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/server"
)

func main() {
	n := flag.Int("n", 3000, "messages to send")
	conc := flag.Int("c", 16, "concurrent SMTP clients (each reuses its connection)")
	role := flag.String("role", "api", "api: accept and queue only; all: also process (workers on)")
	pg := flag.String("pg", "", "PostgreSQL URL (default: SQLite in a temporary directory)")
	size := flag.Int("size", 2048, "approximate message size in bytes")
	quota := flag.Int("quota", 0, "hourly email-run quota per account (0: off); above n it is never reached but is counted for every message, as in serve")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mailload:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "mailload:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*n, *conc, *role, *pg, *size, *quota); err != nil {
		fmt.Fprintln(os.Stderr, "mailload:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(n, conc int, role, pg string, size, quota int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "mailload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL, cfg.Role = "127.0.0.1:0", dir, pg, role
	cfg.SMTPAddr = "127.0.0.1:0"
	cfg.SMTPPerIPPerMinute, cfg.SMTPPerAccountPerMinute, cfg.EmailRunsPerHour = 0, 0, quota
	cfg.RateLimit = 0
	s, err := server.New(ctx, cfg, io.Discard)
	if err != nil {
		return err
	}
	if _, err := s.Listen(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()

	db := s.DB
	u, acct, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "bench", OpeningCredits: 1000})
	if err != nil {
		return err
	}
	_ = u
	a, err := agents.NewRepo(db).CreateAgent(ctx, agents.NewAgent{
		Agent: agents.Agent{AccountID: acct.ID, Name: "inbox", Definition: json.RawMessage(`{"child_steps":[{"id":"t","step_type":"text","text":"got {{input}}"}]}`),
			Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
		Trigger: agents.Trigger{Type: "email_received", Config: json.RawMessage(`{}`)},
	})
	if err != nil {
		return err
	}
	tr, err := agents.NewRepo(db).AgentTrigger(ctx, acct.ID, a.ID)
	if err != nil {
		return err
	}
	anySender := false
	if _, err := s.MailInbound.SetTriggerConfig(ctx, acct.ID, a.ID, tr.ID, inbound.ConfigPatch{RequireSenderAuth: &anySender}); err != nil {
		return err
	}
	to := a.ID + "@" + s.MailInbound.Domain()
	addr := s.SMTPAddr().String()
	pad := make([]byte, 0, size)
	for len(pad) < size {
		pad = append(pad, "The quarterly figures are attached; please summarise them for the board.\r\n"...)
	}

	var (
		next, failed atomic.Int64
		mu           sync.Mutex
		lat          []time.Duration
		wg           sync.WaitGroup
	)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := smtp.Dial(addr)
			if err != nil {
				failed.Add(1)
				return
			}
			defer cl.Close()
			if err := cl.Hello("load.example"); err != nil {
				failed.Add(1)
				return
			}
			var mine []time.Duration
			for {
				i := next.Add(1)
				if i > int64(n) {
					break
				}
				t0 := time.Now()
				if err := deliver(cl, to, i, pad); err != nil {
					failed.Add(1)
					_ = cl.Reset()
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			cl.Quit()
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	accepted := len(lat)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	fmt.Printf("database=%s role=%s clients=%d size≈%dB\n", db.Dialect, role, conc, size)
	fmt.Printf("accepted %d of %d in %v: %.0f messages/s (refused %d); latency p50 %v p99 %v\n",
		accepted, n, elapsed.Round(time.Millisecond), float64(accepted)/elapsed.Seconds(), failed.Load(), pct(0.5), pct(0.99))

	// None lost: every accepted message is on disk with its job.
	var rows, jobs int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM inbound_emails WHERE account_id = $1`, acct.ID).Scan(&rows); err != nil {
		return err
	}
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'mail_inbound'`).Scan(&jobs); err != nil {
		return err
	}
	fmt.Printf("queued rows %d, jobs %d\n", rows, jobs)
	if rows != accepted || jobs != accepted {
		return fmt.Errorf("lost mail: %d accepted, %d rows, %d jobs", accepted, rows, jobs)
	}
	if role != server.RoleAll {
		return nil
	}
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var processed, runs, distinct int
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM inbound_emails WHERE account_id = $1 AND status = 'processed'`, acct.ID).Scan(&processed); err != nil {
			return err
		}
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT metadata) FROM runs WHERE account_id = $1`, acct.ID).Scan(&runs, &distinct); err != nil {
			return err
		}
		if processed == accepted {
			fmt.Printf("processed %d in %v after the first message; runs %d (distinct messages %d)\n", processed, time.Since(start).Round(time.Millisecond), runs, distinct)
			if runs != accepted || distinct != accepted {
				return fmt.Errorf("%d runs for %d messages", runs, accepted)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d processed", processed, accepted)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func deliver(cl *smtp.Client, to string, i int64, pad []byte) error {
	if err := cl.Mail("load@load.example"); err != nil {
		return err
	}
	if err := cl.Rcpt(to); err != nil {
		return err
	}
	w, err := cl.Data()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "From: load@load.example\r\nTo: %s\r\nSubject: message %d\r\nMessage-ID: <%d@load.example>\r\n\r\n", to, i, i)
	w.Write(pad)
	return w.Close()
}
