package engine_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm/offline"
)

// fakeS3 is an S3-compatible endpoint on loopback that records how each
// request was signed and what it stored.
type fakeS3 struct {
	*httptest.Server
	mu       sync.Mutex
	auth     []string
	paths    []string
	bodies   []string
	requests int
}

func newFakeS3(t *testing.T) *fakeS3 {
	f := &fakeS3{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests++
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		f.bodies = append(f.bodies, string(b))
		f.mu.Unlock()
		w.Header().Set("ETag", `"d41d8cd98f00b204e9800998ecf8427e"`)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeS3) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// The server's own credentials, as the AWS SDK's default chain would find them.
const (
	envKeyID  = "AKIASERVERAMBIENT000"
	envSecret = "server-ambient-secret-never-for-tenants"
)

func ambientCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", envKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", envSecret)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func s3Step(extra string) string {
	return `{"child_steps":[{"id":"put","step_type":"write_aws_s3_object","bucket":"reports","key":"out/{{input}}.txt",` +
		`"content":"report for {{input}}","force_path_style":true` + extra + `}]}`
}

// TestS3SignsWithAccountSecrets: with secrets named, the request is signed
// with the account's key, never with the credentials in the server's
// environment.
func TestS3SignsWithAccountSecrets(t *testing.T) {
	ambientCredentials(t)
	fake := newFakeS3(t)
	e := engine.New(engine.Config{AllowPrivateWebhooks: true})
	h := &host{model: offline.New(), secrets: map[string]string{"S3_KEY": "AKIATENANTKEY0000001", "S3_SECRET": "tenant-secret-value"},
		secretHosts: []string{strings.TrimPrefix(fake.URL, "http://")}}
	def := s3Step(`,"endpoint_url":"` + fake.URL + `","access_key_id":"{{secrets.S3_KEY}}","secret_access_key":"{{ secrets.S3_SECRET }}"`)
	j := newJournal()
	out, err := run(t, e, def, "q3", j, h)
	if err != nil {
		t.Fatal(err)
	}
	if out.Output != fake.URL+"/reports/out/q3.txt" {
		t.Errorf("output %q", out.Output)
	}
	if fake.count() == 0 {
		t.Fatal("nothing reached the store")
	}
	for i, a := range fake.auth {
		if !strings.Contains(a, "Credential=AKIATENANTKEY0000001/") || strings.Contains(a, envKeyID) {
			t.Errorf("request %d (%s) signed as %q, want the account's key", i, fake.paths[i], a)
		}
	}
	if !strings.Contains(strings.Join(fake.bodies, ""), "report for q3") || fake.paths[0] != "PUT /reports/out/q3.txt" {
		t.Errorf("stored %q at %q", fake.bodies, fake.paths)
	}
	for _, r := range j.records {
		for _, v := range []string{r.Output, r.Input, r.Error} {
			if strings.Contains(v, "tenant-secret-value") || strings.Contains(v, "AKIATENANTKEY") {
				t.Errorf("a step record shows the secret: %+v", r)
			}
		}
	}
}

// TestS3RefusesServerCredentials: without secrets, a bucket the operator
// has not allowed is refused before anything is sent, even though the
// server's environment has credentials; an allowed bucket is written with
// them, at the server's endpoint only.
func TestS3RefusesServerCredentials(t *testing.T) {
	ambientCredentials(t)
	fake := newFakeS3(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", fake.URL) // the operator's endpoint
	for _, c := range []struct {
		name, def string
		allowed   bool
	}{
		{"no credentials", s3Step(``), false},
		{"tenant endpoint", s3Step(`,"endpoint_url":"` + fake.URL + `"`), false},
		{"literal keys", s3Step(`,"access_key_id":"AKIALITERAL","secret_access_key":"literal"`), true},
		{"half a pair", s3Step(`,"access_key_id":"{{secrets.S3_KEY}}"`), true},
		{"missing secret", s3Step(`,"access_key_id":"{{secrets.NOPE}}","secret_access_key":"{{secrets.NOPE2}}"`), false},
		{"allowed bucket, tenant endpoint", s3Step(`,"endpoint_url":"` + fake.URL + `/x"`), true},
	} {
		cfg := engine.Config{AllowPrivateWebhooks: true}
		if c.allowed {
			cfg.S3AllowedBuckets = []string{"reports"}
		}
		e := engine.New(cfg)
		_, err := run(t, e, c.def, "q3", newJournal(), &host{model: offline.New(), secrets: map[string]string{"S3_KEY": "k"}})
		switch {
		case err == nil:
			t.Errorf("%s: the write went ahead", c.name)
		case c.name == "no credentials" && !errors.Is(err, engine.ErrServerCredentials):
			t.Errorf("%s: %v", c.name, err)
		case c.name == "missing secret" && !strings.Contains(err.Error(), `"NOPE"`):
			t.Errorf("%s: the error does not name the secret: %v", c.name, err)
		}
	}
	if n := fake.count(); n != 0 {
		t.Fatalf("%d requests reached the store", n)
	}

	// The operator allows the bucket: the server's credentials sign.
	e := engine.New(engine.Config{AllowPrivateWebhooks: true, S3AllowedBuckets: []string{"reports"}})
	if _, err := run(t, e, s3Step(``), "q3", newJournal(), nil); err != nil {
		t.Fatal(err)
	}
	if fake.count() == 0 || !strings.Contains(fake.auth[0], "Credential="+envKeyID+"/") {
		t.Errorf("allowed bucket signed as %q", fake.auth)
	}
}

// TestSecretsAreNotTemplateVariables: {{secrets.NAME}} resolves only in
// the credential fields; anywhere else it names nothing, so a secret
// cannot be copied into an output.
func TestSecretsAreNotTemplateVariables(t *testing.T) {
	h := &host{model: offline.New(), secrets: map[string]string{"K": "tenant-secret-value"}}
	out, err := run(t, engine.New(engine.Config{}), `{"child_steps":[{"id":"show","step_type":"display_result","template":"key: {{secrets.K}}"}]}`, "x", newJournal(), h)
	if !errors.Is(err, engine.ErrMissingReference) || strings.Contains(out.Output, "tenant-secret-value") {
		t.Fatalf("output %q, err %v", out.Output, err)
	}
	if strings.Contains(err.Error(), "tenant-secret-value") {
		t.Fatalf("the error shows the value: %v", err)
	}
}

// TestS3SecretsGoOnlyToTheirHosts: an endpoint the account's keys are not
// bound to receives nothing — not the key id, not a signature — whoever
// wrote the step; the failure names the secret and its hosts, not a value.
func TestS3SecretsGoOnlyToTheirHosts(t *testing.T) {
	ambientCredentials(t)
	fake := newFakeS3(t)
	e := engine.New(engine.Config{AllowPrivateWebhooks: true})
	for _, hosts := range [][]string{{"minio.example.net:9000"}, {"127.0.0.1"}, nil} {
		h := &host{model: offline.New(), secrets: map[string]string{"S3_KEY": "AKIATENANTKEY0000001", "S3_SECRET": "tenant-secret-value"},
			secretHosts: hosts}
		def := s3Step(`,"endpoint_url":"` + fake.URL + `","access_key_id":"{{secrets.S3_KEY}}","secret_access_key":"{{secrets.S3_SECRET}}"`)
		j := newJournal()
		_, err := run(t, e, def, "q3", j, h)
		if err == nil || !strings.Contains(err.Error(), `"S3_KEY"`) || strings.Contains(err.Error(), "tenant-secret-value") {
			t.Fatalf("bound to %v: %v", hosts, err)
		}
		if fake.count() != 0 {
			t.Fatalf("bound to %v, the endpoint still got %d requests: %q", hosts, fake.count(), fake.auth)
		}
	}
}

// TestS3RedirectCarriesNoSecretElsewhere: the bound endpoint answering
// with a redirect to another host does not get the signed write sent
// there, and a key with a ".." segment (which a server could resolve into
// another bucket's path) is refused before anything is sent.
func TestS3RedirectCarriesNoSecretElsewhere(t *testing.T) {
	ambientCredentials(t)
	elsewhere := newFakeS3(t)
	bound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer bound.Close()
	e := engine.New(engine.Config{AllowPrivateWebhooks: true})
	h := &host{model: offline.New(), secrets: map[string]string{"S3_KEY": "AKIATENANTKEY0000001", "S3_SECRET": "tenant-secret-value"},
		secretHosts: []string{strings.TrimPrefix(bound.URL, "http://")}}
	def := s3Step(`,"endpoint_url":"` + bound.URL + `","access_key_id":"{{secrets.S3_KEY}}","secret_access_key":"{{secrets.S3_SECRET}}"`)
	_, err := run(t, e, def, "q3", newJournal(), h)
	if err == nil || !strings.Contains(err.Error(), `"S3_KEY"`) || strings.Contains(err.Error(), "tenant-secret-value") {
		t.Fatalf("redirected write: %v", err)
	}
	if n := elsewhere.count(); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}

	h.secretHosts = []string{strings.TrimPrefix(elsewhere.URL, "http://")}
	def = `{"child_steps":[{"id":"put","step_type":"write_aws_s3_object","bucket":"reports","key":"../other/{{input}}",` +
		`"force_path_style":true,"endpoint_url":"` + elsewhere.URL + `","access_key_id":"{{secrets.S3_KEY}}","secret_access_key":"{{secrets.S3_SECRET}}"}]}`
	if _, err := run(t, e, def, "q3", newJournal(), h); err == nil || !strings.Contains(err.Error(), `".."`) {
		t.Fatalf("dot-dot key: %v", err)
	}
	if n := elsewhere.count(); n != 0 {
		t.Fatalf("a dot-dot key reached the store: %d requests", n)
	}
}
