package modelalerts

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestModelAlertsRepo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		rp := repo{db: db}
		acct, other := storetest.Account(t, db), storetest.Account(t, db)
		rec := func(accountID, agent, key string) bool {
			t.Helper()
			_, created, err := rp.recordAlert(ctx, ModelAlert{AccountID: accountID, AgentID: agent, ModelID: "m",
				ModelName: "M", Type: "model_sunset", Message: "msg", DedupeKey: key})
			if err != nil {
				t.Fatal(err)
			}
			return created
		}
		if !rec(acct, "agent-1", "k1") || rec(acct, "agent-1", "k1") || !rec(acct, "", "k2") || !rec(other, "agent-1", "k1") {
			t.Fatal("dedupe by account and key")
		}
		list, n, err := rp.alerts(ctx, acct, alertFilter{}, 0, 10)
		if err != nil || n != 2 || list[0].DedupeKey != "k2" || list[0].AgentID != "" || list[1].AgentID != "agent-1" {
			t.Fatalf("list: %+v %v", list, err)
		}
		if _, n, _ := rp.alerts(ctx, acct, alertFilter{AgentID: "agent-1"}, 0, 10); n != 1 {
			t.Errorf("by agent: %d", n)
		}
		if err := rp.markAlertRead(ctx, other, list[0].ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account: %v", err)
		}
		if err := rp.markAlertRead(ctx, acct, list[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, n, _ := rp.alerts(ctx, acct, alertFilter{UnreadOnly: true}, 0, 10); n != 1 {
			t.Errorf("unread: %d", n)
		}
		if n, _ := rp.markAllAlertsRead(ctx, acct); n != 1 {
			t.Errorf("mark all: %d", n)
		}
		if n, _ := rp.unreadAlerts(ctx, other); n != 1 {
			t.Errorf("other account's unread: %d", n)
		}
		if _, _, err := rp.recordAlert(ctx, ModelAlert{AccountID: "0190a3b4-0000-7000-8000-000000000000", DedupeKey: "x"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v", err)
		}

		// Failure signals: recorded ones and failed runs, not cancelled runs.
		since := store.Now().Add(-time.Minute)
		if err := rp.recordSignal(ctx, acct, "agent-1", "agent_eval_fail", store.Now()); err != nil {
			t.Fatal(err)
		}
		for _, cancel := range []bool{false, true} {
			r, err := runs.NewRepo(db, nil).CreateRun(ctx, runs.Run{AccountID: acct, AgentID: "agent-1"})
			if err != nil {
				t.Fatal(err)
			}
			if cancel {
				if _, err := runs.NewRepo(db, nil).RequestCancel(ctx, acct, r.ID); err != nil {
					t.Fatal(err)
				}
			}
			att, _ := runs.NewRepo(db, nil).StartRunAttempt(ctx, r.ID)
			if err := runs.NewRepo(db, nil).FinishRunAttempt(ctx, r.ID, att, runs.RunResult{Status: runs.RunFailed, Error: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		sig, err := rp.signalsSince(ctx, acct, "agent-1", since)
		if err != nil || len(sig) != 2 || sig[0].Signal != "agent_eval_fail" || sig[1].Signal != string(lifecycle.SignalRunFailed) {
			t.Errorf("signals: %+v %v", sig, err)
		}
		if sig, _ := rp.signalsSince(ctx, other, "agent-1", since); len(sig) != 0 {
			t.Errorf("other account's signals: %+v", sig)
		}
	})
}
