package runs_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// A run blocked at its input keeps no copy of what was blocked: the input
// is replaced by its redaction and an e-mail run's subject is withheld
// from its metadata; its sender stays (the auto-block reads it). A run
// checked safe keeps both.
func TestBlockedInputWithholdsTheEmailSubject(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		repo := runs.NewRepo(db, nil)
		_, acct, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "G"})
		agent := storetest.JudgedAgent(t, db, acct.ID)
		md := map[string]any{"inbound_email_id": "e1", "email_from": "ann@example.com", "email_subject": "my card is 4111 1111 1111 1111"}
		str := func(s string) *string { return &s }
		blocked, err := repo.CreateRun(ctx, runs.Run{AccountID: acct.ID, AgentID: agent, Input: str("my card is 4111 1111 1111 1111"), Metadata: md})
		if err != nil {
			t.Fatal(err)
		}
		safe, err := repo.CreateRun(ctx, runs.Run{AccountID: acct.ID, AgentID: agent, Input: str("hello"), Metadata: md})
		if err != nil {
			t.Fatal(err)
		}
		redacted := "my card is [credit_card]"
		if err := repo.SetRunGovernanceInput(ctx, acct.ID, blocked.ID, "blocked", &redacted); err != nil {
			t.Fatal(err)
		}
		if err := repo.SetRunGovernanceInput(ctx, acct.ID, safe.ID, "safe", nil); err != nil {
			t.Fatal(err)
		}
		b, err := repo.Run(ctx, acct.ID, blocked.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b.Input == nil || *b.Input != redacted || b.Metadata["email_subject"] != runs.WithheldSubject || b.Metadata["email_from"] != "ann@example.com" || b.GovernanceInputStatus != "blocked" {
			t.Fatalf("blocked run: input %v, metadata %v, status %q", b.Input, b.Metadata, b.GovernanceInputStatus)
		}
		s, err := repo.Run(ctx, acct.ID, safe.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Input == nil || *s.Input != "hello" || s.Metadata["email_subject"] != md["email_subject"] {
			t.Fatalf("safe run: input %v, metadata %v", s.Input, s.Metadata)
		}
		// Another account's run is not touched.
		if err := repo.SetRunGovernanceInput(ctx, "01234567-89ab-7def-8123-456789abcdef", safe.ID, "blocked", &redacted); err != nil {
			t.Fatal(err)
		}
		if s, _ = repo.Run(ctx, acct.ID, safe.ID); s.Input == nil || *s.Input != "hello" {
			t.Fatalf("another account's call changed the run: %v", s.Input)
		}
	})
}
