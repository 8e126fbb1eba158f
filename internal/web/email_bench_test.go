package web_test

import (
	"context"
	"fmt"
	"time"

	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The e-mail and settings areas' benchmarks: p50 and p95 of each page,
// from the browser's side over loopback (the console, its in-process API
// calls and the database together), at an account's realistic size:
//
//	go test -run '^$' -bench 'EmailPages|SettingsPage' -benchtime 100x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)

// BenchmarkEmailPages renders, in turn, the inbound page of an account
// with 300 agents (40 of them e-mail-triggered), 200 blocked senders and
// 100 discarded messages, the e-mail page of one agent, the domains list
// and a domain's page with its records and DMARC summary.
func BenchmarkEmailPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv, _, _ := mailConsole(b, d)
			ctx := context.Background()
			owner, _ := mailOwner(b, srv, "boss@acme.test")
			api := apiClient(b, srv, owner.Key)
			var inbox string
			for i := range 300 {
				trigger := "dynamic_input"
				if i%7 == 0 && i < 280 {
					trigger = "email_received"
				}
				id := srv.StoreAgent(b, owner.AccountID, fmt.Sprintf("Agent %03d", i), showDef, trigger)
				if trigger == "email_received" {
					inbox = id
				}
			}
			for i := range 200 {
				if _, err := api.BlockEmailSender(ctx, fmt.Sprintf("sender%03d@spam%d.test", i, i%17), "address", "bench"); err != nil {
					b.Fatal(err)
				}
			}
			for i := range 100 {
				if _, err := srv.S.MailProtect.RecordRejection(ctx, protect.Rejection{AccountID: owner.AccountID, AgentID: inbox,
					Recipient: inbox + "@agent.test", Sender: fmt.Sprintf("x%d@bad.test", i), Reason: "sender_blocked", Subject: "Offer"}); err != nil {
					b.Fatal(err)
				}
			}
			dom, err := api.AddEmailDomain(ctx, "custom", "agent.acme.test", false)
			if err != nil {
				b.Fatal(err)
			}
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(owner.Key)
			pages := [][2]string{{"/console/email", "rejections"}, {"/console/email/agents/" + inbox, "trigger-settings"},
				{"/console/email/domains", "add-domain"}, {"/console/email/domains/" + dom.ID, "dns-records"}}
			var durations []time.Duration
			b.ResetTimer()
			for i := range b.N {
				p := pages[i%len(pages)]
				durations = append(durations, timedGet(b, br, p[0], p[1]))
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}

// BenchmarkSettingsPage renders /console/settings of an account with 50
// API keys, 30 members, 50 secrets, 2,000 ledger entries over the chart's
// window and 20 agents exposed as MCP tools.
func BenchmarkSettingsPage(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			ctx := context.Background()
			api := apiClient(b, srv, srv.Key)
			for i := range 50 {
				srv.IssueKey(b, srv.AccountID, srv.UserID, store.RoleMember)
				if _, err := api.SetSecret(ctx, fmt.Sprintf("SECRET_%02d", i), "value", []string{"api.example.com"}); err != nil {
					b.Fatal(err)
				}
			}
			for i := range 29 {
				u, _, err := directory.CreateUser(ctx, srv.DB, directory.NewUser{Name: fmt.Sprintf("Person %02d", i), Email: fmt.Sprintf("p%d@acme.test", i), OpeningCredits: 1})
				if err != nil {
					b.Fatal(err)
				}
				if err := directory.AddMember(ctx, srv.DB, srv.AccountID, u.ID, store.RoleMember); err != nil {
					b.Fatal(err)
				}
			}
			for i := range 20 {
				a := srv.StoreAgent(b, srv.AccountID, fmt.Sprintf("Tool %02d", i), showDef, "dynamic_input")
				if _, err := api.SetAgentMCPTool(ctx, a, client.AgentMCPToolRequest{Enabled: true}); err != nil {
					b.Fatal(err)
				}
			}
			seedLedger(b, srv.DB, srv.AccountID, 2000, 30*24*time.Hour)
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			var durations []time.Duration
			b.ResetTimer()
			for range b.N {
				durations = append(durations, timedGet(b, br, "/console/settings", "usage-chart"))
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}

// seedLedger writes n debits spread over the last span, as model calls
// leave them (the ledger's rows are written directly: the bench measures
// reading them).
func seedLedger(b *testing.B, db *store.DB, accountID string, n int, span time.Duration) {
	b.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		at := now.Add(-time.Duration(int64(span) * int64(i) / int64(n)))
		if _, err := tx.ExecContext(ctx, `INSERT INTO credit_ledger (id, account_id, delta, balance_after, reason, reference, created_at)
			VALUES ($1, $2, $3, $4, $5, NULL, $6)`, store.NewID(), accountID, -int64(1000+i%7*300), int64(4_000_000_000), "prompt_call bench-model", at); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
