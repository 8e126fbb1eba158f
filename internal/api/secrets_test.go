package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestSecretsAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		const value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
		// A new secret names the hosts it may be sent to.
		wantLoc(t, s.Do(t, "PUT", "/secrets/S3_SECRET", s.Key, map[string]any{"value": value}), "value_error", "body", "hosts")
		r := s.Do(t, "PUT", "/secrets/S3_SECRET", s.Key, map[string]any{"value": value, "hosts": []string{"S3.Example.com", "minio.internal:9000"}})
		wantStatus(t, r, http.StatusCreated)
		if bytes.Contains(r.Body, []byte(value)) || !bytes.Contains(r.Body, []byte(`"name":"S3_SECRET"`)) ||
			!bytes.Contains(r.Body, []byte(`"hosts":["s3.example.com","minio.internal:9000"]`)) {
			t.Fatalf("create answered %s", r.Body)
		}
		// The value alone keeps the hosts; the hosts alone keep the value.
		wantStatus(t, s.Do(t, "PUT", "/secrets/S3_SECRET", s.Key, map[string]any{"value": value + "2"}), http.StatusOK)
		r = s.Do(t, "PUT", "/secrets/S3_SECRET", s.Key, map[string]any{"hosts": []string{"*.s3.example.com"}})
		wantStatus(t, r, http.StatusOK)
		if !bytes.Contains(r.Body, []byte(`"hosts":["*.s3.example.com"]`)) {
			t.Errorf("rebind answered %s", r.Body)
		}
		for _, bad := range []any{[]string{}, []string{"https://s3.example.com/"}, []string{"*.com"}, []string{"x.example:70000"}} {
			wantLoc(t, s.Do(t, "PUT", "/secrets/S3_SECRET", s.Key, map[string]any{"hosts": bad}), "value_error", "body", "hosts")
		}
		wantLoc(t, s.Do(t, "PUT", "/secrets/NEW_ONE", s.Key, map[string]any{"hosts": []string{"x.example"}}), "missing", "body", "value")
		wantStatus(t, s.Do(t, "PUT", "/secrets/A_KEY", s.Key, map[string]any{"value": "x", "hosts": []string{"a.example"}}), http.StatusCreated)

		// Listed by name, in both shapes, never with values.
		for v, field := range map[string]string{"2026-07-01": "secrets", "2026-07-27": "data"} {
			r := s.Do(t, "GET", "/secrets?limit=1&page=2", s.Key, nil, "Service-Version: "+v)
			wantStatus(t, r, http.StatusOK)
			var list map[string]any
			r.JSON(t, &list)
			items, _ := list[field].([]any)
			if len(items) != 1 || items[0].(map[string]any)["name"] != "S3_SECRET" || bytes.Contains(r.Body, []byte("wJalr")) ||
				fmt.Sprint(items[0].(map[string]any)["hosts"]) != "[*.s3.example.com]" {
				t.Errorf("list at %s: %s", v, r.Body)
			}
		}

		// Bad input: clear 422s that never repeat the value.
		wantLoc(t, s.Do(t, "PUT", "/secrets/9bad", s.Key, map[string]any{"value": "x"}), "value_error", "path", "name")
		wantLoc(t, s.Do(t, "PUT", "/secrets/bad-name", s.Key, map[string]any{"value": "x"}), "value_error", "path", "name")
		wantStatus(t, s.Do(t, "PUT", "/secrets/"+strings.Repeat("a", 65), s.Key, map[string]any{"value": "x"}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "PUT", "/secrets/EMPTY", s.Key, map[string]any{"value": ""}), http.StatusUnprocessableEntity)
		wantStatus(t, s.Do(t, "PUT", "/secrets/NOVALUE", s.Key, map[string]any{}), http.StatusUnprocessableEntity)
		big := "LEAKME" + strings.Repeat("x", secrets.MaxValueBytes)
		r = s.Do(t, "PUT", "/secrets/BIG", s.Key, map[string]any{"value": big})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if bytes.Contains(r.Body, []byte("LEAKME")) {
			t.Errorf("the 422 repeats the value: %.300s", r.Body)
		}

		// Members may list names, not write.
		member := s.IssueKey(t, s.AccountID, "", store.RoleMember)
		wantStatus(t, s.Do(t, "PUT", "/secrets/S3_SECRET", member, map[string]any{"value": "mine"}), http.StatusForbidden)
		wantStatus(t, s.Do(t, "PUT", "/secrets/S3_SECRET", member, map[string]any{"hosts": []string{"member.example"}}), http.StatusForbidden)
		wantStatus(t, s.Do(t, "DELETE", "/secrets/S3_SECRET", member, nil), http.StatusForbidden)
		wantStatus(t, s.Do(t, "GET", "/secrets", member, nil), http.StatusOK)
		if v, err := s.S.Secrets.Reveal(context.Background(), s.AccountID, "S3_SECRET"); err != nil || v.Value != value+"2" ||
			fmt.Sprint(v.Hosts) != "[*.s3.example.com]" {
			t.Fatalf("stored value: %v %v", v.Hosts, err)
		}

		wantStatus(t, s.Do(t, "DELETE", "/secrets/A_KEY", s.Key, nil), http.StatusNoContent)
		r = s.Do(t, "DELETE", "/secrets/A_KEY", s.Key, nil)
		wantStatus(t, r, http.StatusNotFound)
		wantStatus(t, s.Do(t, "DELETE", "/secrets/not-a-name", s.Key, nil), http.StatusNotFound)

		// The per-account limit is a 409.
		other := s.NewTenant(t, "full")
		for i := range secrets.MaxPerAccount {
			v := "v"
			if _, _, err := s.S.Secrets.Put(context.Background(), other.AccountID, fmt.Sprintf("S%d", i), &v, []string{"x.example"}); err != nil {
				t.Fatal(err)
			}
		}
		r = s.Do(t, "PUT", "/secrets/ONE_MORE", other.Key, map[string]any{"value": "v", "hosts": []string{"x.example"}})
		wantStatus(t, r, http.StatusConflict)
		wantStatus(t, s.Do(t, "PUT", "/secrets/S0", other.Key, map[string]any{"value": "replaced"}), http.StatusOK)
	})
}

// fakeS3 is an S3-compatible store on loopback recording request signatures.
type fakeS3 struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
	puts []string
}

func newFakeS3(t *testing.T) *fakeS3 {
	f := &fakeS3{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.puts = append(f.puts, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		w.Header().Set("ETag", `"0"`)
	}))
	t.Cleanup(f.Close)
	return f
}

// syncBuffer collects log output from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestS3StepUsesAccountSecrets runs the S3 step end to end: a definition
// without account credentials is refused at save; with them, the write is
// signed with the account's key, not the server's environment, and the
// values appear in no export, event, response or log line.
func TestS3StepUsesAccountSecrets(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIASERVERAMBIENT000")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "server-ambient-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	logs := &syncBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fake := newFakeS3(t)
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		const keyID, secret = "AKIATENANTKEY0000001", "tenant-secret-value-9f8e7d"
		step := func(extra string) map[string]any {
			return map[string]any{"child_steps": []any{map[string]any{"id": "put", "name": "Put", "step_type": "write_aws_s3_object",
				"bucket": "reports", "key": "out/{{agent.run_id}}.txt", "endpoint_url": fake.URL, "force_path_style": true,
				"content": "report: {{input}}", "access_key_id": extra + "{{secrets.S3_KEY}}", "secret_access_key": "{{secrets.S3_SECRET}}"}}}
		}
		bare := step("")
		delete(bare["child_steps"].([]any)[0].(map[string]any), "access_key_id")
		delete(bare["child_steps"].([]any)[0].(map[string]any), "secret_access_key")

		// Refused at save without account credentials, with literal keys.
		r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "ambient", "agent_definition": bare})
		if r.Status != http.StatusUnprocessableEntity || !bytes.Contains(r.Body, []byte("SERVICE_S3_ALLOWED_BUCKETS")) {
			t.Fatalf("no credentials: %d %s", r.Status, r.Body)
		}
		lit := step("")
		lit["child_steps"].([]any)[0].(map[string]any)["secret_access_key"] = "literal-key"
		if r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "literal", "agent_definition": lit}); r.Status != http.StatusUnprocessableEntity ||
			!bytes.Contains(r.Body, []byte("account secret")) {
			t.Fatalf("literal key: %d %s", r.Status, r.Body)
		}

		a := createAgent(t, s, s.Key, map[string]any{"name": "writer", "agent_definition": step("")})
		wantStatus(t, s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"definition": bare}), http.StatusUnprocessableEntity)

		// Before the secrets exist the run fails, naming the missing secret.
		r = s.Do(t, "POST", "/agents/"+a.ID+"/runs", s.Key, map[string]any{"input": "q3"})
		wantStatus(t, r, http.StatusOK)
		var start struct {
			RunID string `json:"run_id"`
		}
		r.JSON(t, &start)
		failed := waitRun(t, s, s.Key, start.RunID)
		if failed.Status != "failed" || len(failed.Attempts) == 0 || failed.Attempts[0].Error == nil ||
			!strings.Contains(*failed.Attempts[0].Error, `"S3_KEY"`) {
			t.Fatalf("run without secrets: %s %+v", failed.Status, failed.Attempts)
		}

		storeHost := strings.TrimPrefix(fake.URL, "http://")
		wantStatus(t, s.Do(t, "PUT", "/secrets/S3_KEY", s.Key, map[string]any{"value": keyID, "hosts": []string{storeHost}}), http.StatusCreated)
		wantStatus(t, s.Do(t, "PUT", "/secrets/S3_SECRET", s.Key, map[string]any{"value": secret, "hosts": []string{storeHost}}), http.StatusCreated)

		resp := postStream(t, s, "/agents/"+a.ID+"/runs/stream", s.Key, `{"input":"q3"}`)
		events := readSSE(t, resp, func(e sseEvent) bool { return e.event == "done" })
		resp.Body.Close()
		last := events[len(events)-1]
		if last.event != "done" || !strings.Contains(last.data, `"status":"completed"`) {
			t.Fatalf("run: %+v", events)
		}
		fake.mu.Lock()
		auth := append([]string(nil), fake.auth...)
		fake.mu.Unlock()
		if len(auth) == 0 {
			t.Fatal("nothing reached the store")
		}
		for _, h := range auth {
			if !strings.Contains(h, "Credential="+keyID+"/") || strings.Contains(h, "AKIASERVERAMBIENT") {
				t.Errorf("signed as %q, want the account's key", h)
			}
		}

		// The values are nowhere a tenant or an operator reads.
		var seen []string
		for _, e := range events {
			seen = append(seen, e.data)
		}
		run := s.Do(t, "GET", "/agents/runs/"+start.RunID+"?include_step_outputs=true", s.Key, nil)
		export := s.Do(t, "GET", "/agents/"+a.ID+"/export?download=false", s.Key, nil)
		wantStatus(t, export, http.StatusOK)
		if !bytes.Contains(export.Body, []byte("{{secrets.S3_SECRET}}")) {
			t.Errorf("the export lost the reference: %s", export.Body)
		}
		def := s.Do(t, "GET", "/agents/"+a.ID+"/definition", s.Key, nil)
		list := s.Do(t, "GET", "/secrets", s.Key, nil)
		seen = append(seen, string(run.Body), string(export.Body), string(def.Body), string(list.Body), logs.String())
		for i, text := range seen {
			for _, v := range []string{secret, keyID} {
				if strings.Contains(text, v) {
					t.Errorf("a secret value appears in output %d: %.400s", i, text)
				}
			}
		}
	})
}
