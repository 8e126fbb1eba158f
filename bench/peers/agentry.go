package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// agentryFiveSteps is the Agentry side of the workload: five steps, none of
// them a model call, doing the same string work as langgraphFiveNodes.
const agentryFiveSteps = `{"child_steps":[{"id":"prep","step_type":"text","text":"Question: {{input}}","child_steps":[
 {"id":"tidy","step_type":"regex_replace","rules":[{"pattern":"\\s+","replacement":" "}],"child_steps":[
 {"id":"wrap","step_type":"text","text":"Answer: {{input}}","child_steps":[
 {"id":"sign","step_type":"text","text":"{{input}} (checked)","child_steps":[
 {"id":"show","step_type":"display_result"}]}]}]}]}]}`

// runInput is the input of every run on both servers.
const runInput = "When  do ships   leave?"

// wantOutput is what the five steps make of runInput, on both servers.
const wantOutput = "Answer: Question: When do ships leave? (checked)"

// agentry is a started `agentry serve` with the benchmark agent created.
type agentry struct {
	srv     *server
	base    string
	key     string
	agentID string
}

// startAgentry builds the agentry binary from this module, starts it on a
// fresh SQLite data directory under dir with a bootstrap API key, and
// creates the benchmark agent through the API.
func startAgentry(ctx context.Context, dir string) (*agentry, error) {
	bin := filepath.Join(dir, "agentry")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/agentry/agentry/cmd/agentry")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build agentry: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	a := &agentry{base: loopback(port), key: "agk_peers_" + hex.EncodeToString(secret)}
	// Defaults everywhere except: no rate limit and no caps on open
	// streams (the whole load is one credential, whose 128 concurrent
	// streams would pass the default cap of 50, and the limiter would
	// measure itself), and credits enough for every run.
	cmd := exec.Command(bin, "serve",
		"--addr", "127.0.0.1:"+strconv.Itoa(port),
		"--data-dir", filepath.Join(dir, "agentry-data"),
		"--bootstrap-api-key", a.key,
		"--rate-limit", "0",
		"--max-streams-per-key", "0",
		"--max-streams-per-account", "0",
		"--default-credits", "1e12",
		"--log-level", "warn")
	cmd.Env = append(cmd.Environ(), "SERVICE_DATABASE_URL=")
	if a.srv, err = startServer("agentry", cmd, filepath.Join(dir, "agentry.log")); err != nil {
		return nil, err
	}
	if err := waitReady(ctx, a.srv, a.base+"/readyz", 60*time.Second); err != nil {
		return a, err
	}
	return a, a.createAgent(ctx)
}

func (a *agentry) call(ctx context.Context, method, path string, body any, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(b))
	req.Header.Set("X-API-Key", a.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("agentry %s %s: HTTP %d: %s", method, path, resp.StatusCode, rb)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(rb, out)
}

// createAgent creates the agent, sets its workflow, and turns off the
// output evaluation (it would add work LangGraph does not do).
func (a *agentry) createAgent(ctx context.Context) error {
	var created struct{ ID string }
	if err := a.call(ctx, "POST", "/agents", map[string]any{"name": "five steps, no model"}, &created); err != nil {
		return err
	}
	a.agentID = created.ID
	var def struct {
		ChangeID string `json:"change_id"`
	}
	if err := a.call(ctx, "GET", "/agents/"+a.agentID+"/definition", nil, &def); err != nil {
		return err
	}
	if err := a.call(ctx, "PUT", "/agents/"+a.agentID+"/definition", map[string]any{
		"expected_change_id": def.ChangeID, "definition": json.RawMessage(agentryFiveSteps)}, nil); err != nil {
		return err
	}
	return a.call(ctx, "PUT", "/agents/"+a.agentID, map[string]any{
		"evaluation_mode": "output_expectation", "model_upgrade_strategy": "none"}, nil)
}

// target streams POST /agents/{id}/runs/stream; a run is complete at its
// `done` event with status completed and the expected output.
func (a *agentry) target() *target {
	body, _ := json.Marshal(map[string]string{"input": runInput})
	return &target{
		Name: "Agentry",
		PGID: a.srv.pgid(),
		NewRequest: func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, "POST", a.base+"/agents/"+a.agentID+"/runs/stream", bytes.NewReader(body))
			if err != nil {
				return nil, err
			}
			req.Header.Set("X-API-Key", a.key)
			req.Header.Set("Content-Type", "application/json")
			return req, nil
		},
		Event: agentryEvent,
	}
}

func agentryEvent(event, data string) (complete, last bool, err error) {
	switch event {
	case "done":
		var run struct {
			Status string
			Output *string
		}
		if err := json.Unmarshal([]byte(data), &run); err != nil {
			return false, true, fmt.Errorf("agentry done event: %w", err)
		}
		if run.Status != "completed" || run.Output == nil || *run.Output != wantOutput {
			return false, true, fmt.Errorf("agentry run ended %s: %s", run.Status, clip(data))
		}
		return true, true, nil
	case "error":
		return false, true, fmt.Errorf("agentry error event: %s", clip(data))
	}
	return false, false, nil
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
