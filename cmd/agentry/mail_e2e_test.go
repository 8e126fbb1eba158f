package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/smtp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestMailSurvivesKill: a message answered 250 is on disk. The first
// process takes mail but works no jobs (--role api) and is killed with
// SIGKILL right after the 250; then a second batch goes to a full
// process killed just after its last 250, while it is processing. After
// the restart each message has started its agent exactly once.
func TestMailSurvivesKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dbURL, dataDir := storetest.URL(t, d), t.TempDir()
		smtpAddr := freeAddr(t)
		env := []string{"SERVICE_BOOTSTRAP_API_KEY=" + e2eKey, "SERVICE_SMTP_ADDR=" + smtpAddr,
			"SERVICE_JOB_TIMEOUT=3s", "SERVICE_JOB_RESCUE_AFTER=4s"}
		c := startServe(t, dbURL, dataDir, append(env, "SERVICE_ROLE=api")...)
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		k, err := auth.APIKeyByHash(ctx, db, auth.HashKey(e2eKey))
		if err != nil {
			t.Fatal(err)
		}
		a, err := agents.NewRepo(db).CreateAgent(ctx, agents.NewAgent{
			Agent: agents.Agent{AccountID: k.AccountID, Name: "inbox", Definition: json.RawMessage(`{"child_steps":[{"id":"t","step_type":"text","text":"got {{input}}"}]}`),
				Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
			Trigger: agents.Trigger{Type: "email_received", Config: json.RawMessage(`{}`)},
		})
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := agents.NewRepo(db).AgentTrigger(ctx, k.AccountID, a.ID)
		resp := apiPut(t, c.addr, "/agents/"+a.ID+"/triggers/"+tr.ID+"/email-config", `{"require_sender_auth":false}`)
		if resp.StatusCode != 200 {
			t.Fatalf("email-config: %d", resp.StatusCode)
		}
		to := a.ID + "@agent.localhost"
		deliver := func(i int) {
			t.Helper()
			msg := fmt.Sprintf("From: ada@open.example\r\nTo: %s\r\nSubject: n%d\r\nMessage-ID: <n%d@open.example>\r\n\r\nbody %d\r\n", to, i, i, i)
			if err := smtp.SendMail(smtpAddr, nil, "ada@open.example", []string{to}, []byte(msg)); err != nil {
				t.Fatalf("message %d: %v\n%s", i, err, c.logs)
			}
		}
		deliver(0)
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = c.cmd.Wait()

		c = startServe(t, dbURL, dataDir, env...)
		const batch = 10
		for i := 1; i <= batch; i++ {
			deliver(i)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = c.cmd.Wait()
		startServe(t, dbURL, dataDir, env...)

		deadline := time.Now().Add(60 * time.Second)
		for {
			rs, _, err := runs.NewRepo(db, nil).RunsOfAgent(ctx, k.AccountID, a.ID, "", 100, 0)
			if err != nil {
				t.Fatal(err)
			}
			done, perMessage := 0, map[string]int{}
			for _, r := range rs {
				perMessage[fmt.Sprint(r.Metadata["email_subject"])]++
				if r.Status == runs.RunCompleted {
					done++
				}
			}
			for s, n := range perMessage {
				if n > 1 {
					t.Fatalf("message %s started %d runs", s, n)
				}
			}
			if done == batch+1 {
				if len(rs) != batch+1 {
					t.Fatalf("%d runs for %d messages", len(rs), batch+1)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d messages ran after the restart: %v", done, batch+1, perMessage)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}

func apiPut(t *testing.T, addr, path, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("PUT", "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", e2eKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
