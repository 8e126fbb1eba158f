package api_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// makeAgent stores an agent with a definition, as the agents area would.
func makeAgent(t *testing.T, s *testserver.Server, accountID, def string) string {
	t.Helper()
	return s.StoreAgent(t, accountID, "test agent", def, "dynamic_input")
}

func waitRun(t *testing.T, s *testserver.Server, key, runID string) runs.RunResponse {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := s.Do(t, "GET", "/agents/runs/"+runID+"?include_step_outputs=true", key, nil)
		var snap runs.RunResponse
		r.JSON(t, &snap)
		if r.Status != http.StatusOK {
			t.Fatalf("get run: %d %s", r.Status, r.Body)
		}
		if runs.RunTerminal(snap.Status) || snap.Status == runs.RunWaitingHuman {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", runID, snap.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const chainDef = `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}","child_steps":[
	{"id":"show","step_type":"display_result","template":"{{input}}!"}]}]}`

func TestRunLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "world", "metadata": map[string]any{"k": 1}})
		var start runs.RunResponse
		r.JSON(t, &start)
		if r.Status != http.StatusOK || start.RunID == "" || start.Status != "pending" || start.Attempts == nil {
			t.Fatalf("start: %d %s", r.Status, r.Body)
		}
		done := waitRun(t, s, s.Key, start.RunID)
		if done.Status != "completed" || done.Output == nil || *done.Output != "Hello world!" || len(done.Steps) != 2 || len(done.Attempts) != 1 {
			t.Fatalf("done: %+v", done)
		}
		if done.Steps[0].AgentStepID != "greet" || *done.Steps[0].Output != "Hello world" || done.Steps[1].StepType != "display_result" {
			t.Errorf("steps: %+v", done.Steps)
		}
		// Listing, with the status filter and the envelope at both versions.
		for _, v := range []string{"2026-07-01", "2026-07-27"} {
			r := s.Do(t, "GET", "/agents/"+agent+"/runs?status=completed&limit=10", s.Key, nil, "Service-Version: "+v)
			var list struct {
				Data       []runs.RunResponse `json:"data"`
				Pagination map[string]any     `json:"pagination"`
			}
			r.JSON(t, &list)
			if r.Status != http.StatusOK || len(list.Data) != 1 || list.Pagination["total"] != 1.0 {
				t.Errorf("list at %s: %d %s", v, r.Status, r.Body)
			}
		}
		if r := s.Do(t, "GET", "/agents/"+agent+"/runs?status=bogus", s.Key, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("bad status filter: %d", r.Status)
		}
		// Cancelling a finished run is refused.
		if r := s.Do(t, "DELETE", "/agents/runs/"+start.RunID, s.Key, nil); r.Status != http.StatusConflict {
			t.Errorf("cancel finished: %d %s", r.Status, r.Body)
		}
		// Trace search finds the step output.
		r = s.Do(t, "POST", "/agents/runs/search", s.Key, map[string]any{"query": "hello world", "top_n": 5})
		var found struct {
			Matches []runs.TraceMatch `json:"matches"`
			Total   int               `json:"total"`
		}
		r.JSON(t, &found)
		if r.Status != http.StatusOK || found.Total == 0 || *found.Matches[0].AgentRunID != start.RunID {
			t.Errorf("search: %d %s", r.Status, r.Body)
		}
		// Its description says what the lexical ranking can and cannot find.
		if r := s.Do(t, "GET", "/openapi.json", "", nil); !strings.Contains(string(r.Body), "not meaning: a paraphrase") {
			t.Error("/openapi.json does not describe trace search as lexical")
		}

		// Another account sees none of it.
		other := s.NewTenant(t, "other")
		for _, req := range [][2]string{{"GET", "/agents/runs/" + start.RunID}, {"DELETE", "/agents/runs/" + start.RunID},
			{"GET", "/agents/" + agent + "/runs"}, {"POST", "/agents/" + agent + "/runs"}} {
			if r := s.Do(t, req[0], req[1], other.Key, map[string]any{}); r.Status != http.StatusNotFound {
				t.Errorf("%s %s by another account: %d", req[0], req[1], r.Status)
			}
		}
		r = s.Do(t, "POST", "/agents/runs/search", other.Key, map[string]any{"query": "hello world"})
		r.JSON(t, &found)
		if found.Total != 0 {
			t.Errorf("another account's search found %d traces", found.Total)
		}
	})
}

func TestRunRefusals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		agent := makeAgent(t, s, s.AccountID, chainDef)
		if r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x", "input_upload_id": "01234567-89ab-7def-8123-456789abcdef"}); r.Status != http.StatusBadRequest {
			t.Errorf("input and upload: %d %s", r.Status, r.Body)
		}
		ids := make([]string, 21)
		for i := range ids {
			ids[i] = store.NewID()
		}
		if r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input_upload_ids": ids}); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("21 uploads: %d %s", r.Status, r.Body)
		}
		// Every step type runs now (memory banks landed): a memory step
		// naming a bank the account lacks fails its run, naming the bank.
		retrieval := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"r","step_type":"search_memory","memory_bank_id":"01234567-89ab-7def-8123-456789abcdef","query":"{{input}}"}]}`)
		if r := s.Do(t, "POST", "/agents/"+retrieval+"/runs", s.Key, map[string]any{"input": "x"}); r.Status != http.StatusOK {
			t.Errorf("memory step: %d %s", r.Status, r.Body)
		} else {
			var start runs.RunResponse
			r.JSON(t, &start)
			done := waitRun(t, s, s.Key, start.RunID)
			if b, _ := json.Marshal(done); done.Status != "failed" || !strings.Contains(string(b), "memory bank 01234567-89ab-7def-8123-456789abcdef not found") {
				t.Errorf("a memory step on a missing bank: %s", b)
			}
		}
		if _, _, err := agents.NewRepo(s.DB).DisableAgent(ctx, s.AccountID, agent, s.UserID, "manual"); err != nil {
			t.Fatal(err)
		}
		if r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x"}); r.Status != http.StatusConflict {
			t.Errorf("disabled agent: %d %s", r.Status, r.Body)
		}
		if _, err := agents.NewRepo(s.DB).EnableAgent(ctx, s.AccountID, agent, s.UserID); err != nil {
			t.Fatal(err)
		}
		bal, _ := billing.NewCredits(s.DB).Balance(ctx, s.AccountID)
		if _, err := billing.NewCredits(s.DB).Charge(ctx, s.AccountID, bal, "test", ""); err != nil {
			t.Fatal(err)
		}
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x"})
		if r.Status != http.StatusPaymentRequired || !strings.Contains(string(r.Body), "insufficient_credits") ||
			!strings.Contains(string(r.Body), "balance is 0 credits, and starting needs a positive balance") {
			t.Errorf("no credits: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/agents/runs/"+store.NewID(), s.Key, nil); r.Status != http.StatusNotFound {
			t.Errorf("unknown run: %d", r.Status)
		}
	})
}

type sseEvent struct{ id, event, data string }

// readSSE reads events until stop returns true or the stream ends.
func readSSE(t *testing.T, resp *http.Response, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				out = append(out, cur)
				if stop(cur) {
					return out
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		}
	}
	return out
}

func postStream(t *testing.T, s *testserver.Server, path, key, body string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestRunStreamAndResume(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: Rivers flow to the sea. Rain fills the rivers again. Clouds carry the rain inland.",
			"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}`)
		resp := postStream(t, s, "/agents/"+agent+"/runs/stream", s.Key, `{"input":"go"}`)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		// Read up to the first token, then drop the connection.
		first := readSSE(t, resp, func(e sseEvent) bool { return e.event == "stream_token" })
		resp.Body.Close()
		if len(first) < 2 || first[0].event != "init" {
			t.Fatalf("first events: %+v", first)
		}
		var initSnap runs.RunResponse
		json.Unmarshal([]byte(first[0].data), &initSnap)
		if !initSnap.Priority || initSnap.RunID == "" {
			t.Fatalf("init: %s", first[0].data)
		}
		last := first[len(first)-1].id
		resp = postStream(t, s, "/agents/"+agent+"/runs/stream", s.Key, `{}`, "Last-Event-ID: "+last)
		rest := readSSE(t, resp, func(e sseEvent) bool { return e.event == "done" })
		resp.Body.Close()
		all := append(first[1:], rest...)
		var tokens strings.Builder
		prev := int64(0)
		for _, e := range all {
			_, seq, ok := strings.Cut(e.id, ":")
			if !ok {
				t.Fatalf("event without run:seq id: %+v", e)
			}
			var n int64
			json.Unmarshal([]byte(seq), &n)
			if n != prev+1 {
				t.Fatalf("gap or duplicate: %d after %d (%+v)", n, prev, all)
			}
			prev = n
			if e.event == "stream_token" {
				var tok struct{ Token string }
				json.Unmarshal([]byte(e.data), &tok)
				tokens.WriteString(tok.Token)
			}
		}
		if all[len(all)-1].event != "done" {
			t.Fatalf("stream did not end with done: %+v", all[len(all)-1])
		}
		var done runs.RunResponse
		json.Unmarshal([]byte(all[len(all)-1].data), &done)
		if done.Status != "completed" || done.Output == nil || *done.Output != tokens.String() || tokens.Len() == 0 {
			t.Errorf("done output %v, streamed %q", done.Output, tokens.String())
		}
		// A resume of another account's run, or a malformed id, is refused.
		other := s.NewTenant(t, "other")
		if r := postStream(t, s, "/agents/"+agent+"/runs/stream", other.Key, `{}`, "Last-Event-ID: "+last); r.StatusCode != http.StatusNotFound {
			t.Errorf("foreign resume: %d", r.StatusCode)
		}
		if r := postStream(t, s, "/agents/"+agent+"/runs/stream", s.Key, `{}`, "Last-Event-ID: 17"); r.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("malformed Last-Event-ID: %d", r.StatusCode)
		}
	})
}

func TestRunAttachmentDownload(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		agent := makeAgent(t, s, s.AccountID, chainDef)
		run, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: s.AccountID, AgentID: agent})
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{"runs/a/report.html": "text/html", "runs/a/chart.png": "image/png"}
		for key, ct := range files {
			if _, err := s.S.Blobs.Put(ctx, key, ct, strings.NewReader("<b>"+key+"</b>")); err != nil {
				t.Fatal(err)
			}
			if err := runs.NewRepo(s.DB, nil).AddRunAttachment(ctx, runs.RunAttachment{StorageKey: key, RunID: run.ID, AccountID: s.AccountID, Name: key[7:], ContentType: ct}); err != nil {
				t.Fatal(err)
			}
		}
		id := func(k string) string { return base64.RawURLEncoding.EncodeToString([]byte(k)) }
		r := s.Do(t, "GET", "/v2/agent-runs/"+run.ID+"/attachments/"+id("runs/a/report.html"), s.Key, nil)
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") {
			t.Errorf("html must download as octet-stream: %d %v", r.Status, r.Header)
		}
		r = s.Do(t, "GET", "/v2/agent-runs/"+run.ID+"/attachments/"+id("runs/a/chart.png")+"?download_name=my.png", s.Key, nil)
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/png" || !strings.Contains(r.Header.Get("Content-Disposition"), "my.png") {
			t.Errorf("png inline: %d %v", r.Status, r.Header)
		}
		other := s.NewTenant(t, "other")
		for _, path := range []string{"/v2/agent-runs/" + run.ID + "/attachments/" + id("runs/a/chart.png"), "/v2/agent-runs/" + run.ID + "/attachments/" + id("nope"), "/v2/agent-runs/" + run.ID + "/attachments/!!!"} {
			key := other.Key
			if strings.Contains(path, "nope") || strings.Contains(path, "!!!") {
				key = s.Key
			}
			if r := s.Do(t, "GET", path, key, nil); r.Status != http.StatusNotFound && r.Status != http.StatusBadRequest {
				t.Errorf("%s: %d", path, r.Status)
			}
		}
		if r := s.Do(t, "GET", "/v2/agent-runs/not-a-uuid/attachments/x", s.Key, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("non-uuid run id: %d", r.Status)
		}
	})
}
