package cli_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestEmailCommands drives `agentry email …` against a real server.
func TestEmailCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key, "email"}
		agentID := ts.StoreAgent(t, ts.AccountID, "inbox", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "email_received")
		tr, err := agents.NewRepo(ts.DB).AgentTrigger(context.Background(), ts.AccountID, agentID)
		if err != nil {
			t.Fatal(err)
		}
		var cfg client.EmailTriggerConfig
		run(t, append(g, "config", agentID, tr.ID, "--alias", "desk", "--allowed-senders", "example.com,boss@example.org", "--queue-on-quota")...).ok(t, &cfg)
		if cfg.EmailAlias == nil || *cfg.EmailAlias != "desk" || len(cfg.EmailAddresses) != 2 || !cfg.EmailQueueOnQuota ||
			cfg.EmailAllowedSenders == nil || len(*cfg.EmailAllowedSenders) != 2 || !cfg.EmailRequireSenderAuth {
			t.Fatalf("config = %+v", cfg)
		}
		run(t, append(g, "config", agentID, tr.ID, "--alias", "")...).ok(t, &cfg)
		if cfg.EmailAlias != nil || cfg.EmailAllowedSenders == nil {
			t.Fatalf("clear alias = %+v", cfg)
		}
		// Without the trigger id, the command finds the agent's trigger.
		run(t, append(g, "config", agentID, "--alias", "front")...).ok(t, &cfg)
		if cfg.TriggerID != tr.ID || cfg.EmailAlias == nil || *cfg.EmailAlias != "front" {
			t.Fatalf("config without a trigger id = %+v", cfg)
		}
		var ag client.Agent
		run(t, "--base-url", ts.URL, "--api-key", ts.Key, "agents", "get", agentID).ok(t, &ag)
		if len(ag.Triggers) != 1 || ag.Triggers[0].ID != tr.ID || ag.Triggers[0].EmailAlias == nil || len(ag.Triggers[0].EmailAddresses) != 2 {
			t.Fatalf("agents get triggers = %+v", ag.Triggers)
		}

		var b client.BlockedEmailSender
		run(t, append(g, "blocked", "add", "spam.example", "--domain", "--note", "bulk")...).ok(t, &b)
		if b.MatchType != "domain" || b.SenderEmail != "spam.example" {
			t.Fatalf("add = %+v", b)
		}
		var list []client.BlockedEmailSender
		run(t, append(g, "blocked", "list")...).ok(t, &list)
		if len(list) != 1 || list[0].ID != b.ID {
			t.Fatalf("list = %+v", list)
		}
		var mode struct {
			AutoBlockMode string `json:"auto_block_mode"`
		}
		run(t, append(g, "blocked", "mode", "input")...).ok(t, &mode)
		if mode.AutoBlockMode != "input" {
			t.Fatalf("mode = %+v", mode)
		}
		run(t, append(g, "blocked", "remove", b.ID)...).ok(t, nil)
		run(t, append(g, "blocked", "list")...).ok(t, &list)
		if len(list) != 0 {
			t.Fatalf("after remove %+v", list)
		}

		var rs []client.InboundEmailRejection
		run(t, append(g, "rejections", "--agent-id", agentID)...).ok(t, &rs)
		var st client.InboundEmailStatus
		run(t, append(g, "inbound", "status")...).ok(t, &st)
		if st.Paused || st.QueuedBacklog != 0 {
			t.Fatalf("status %+v", st)
		}
		var c struct{ Cancelled int }
		run(t, append(g, "inbound", "cancel-queued")...).ok(t, &c)
		var r struct{ Resumed bool }
		run(t, append(g, "inbound", "resume")...).ok(t, &r)
		if r.Resumed {
			t.Fatal("resumed an inbox that was not paused")
		}
	})
}
