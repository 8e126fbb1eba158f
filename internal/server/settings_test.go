package server_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/server"
	"github.com/spf13/pflag"
)

// TestSettingsDocsAreGenerated fails when the configuration tables of
// README.md or docs/configuration.md differ from what the settings table
// generates: a setting added, renamed or re-described in code must reach
// the docs through `go generate ./internal/server`.
func TestSettingsDocsAreGenerated(t *testing.T) {
	root := repoRoot(t)
	for _, f := range server.SettingsDocFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := server.ReplaceSettings(string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want != string(b) {
			t.Errorf("%s: the configuration table is out of date; run `go generate ./internal/server`", f)
		}
	}
}

// TestEverySettingIsBound checks the table: one line per setting, every
// flag registered with its variable in the help, names unique, and every
// Config field a setting (save the ones only tests and embedders set).
func TestEverySettingIsBound(t *testing.T) {
	cfg := server.Defaults()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	if err := server.BindFlags(fs, &cfg); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	seen := map[string]bool{}
	base := reflect.ValueOf(&cfg).Elem()
	for _, s := range server.AllSettings() {
		if seen[s.Name] {
			t.Errorf("%s declared twice", s.Name)
		}
		seen[s.Name] = true
		f := fs.Lookup(s.Name)
		if s.NoFlag != (f == nil) {
			t.Errorf("%s: NoFlag %v but flag registered: %v", s.Name, s.NoFlag, f != nil)
		}
		if f != nil && !strings.Contains(f.Usage, "("+s.Env()+")") {
			t.Errorf("--%s help does not name %s: %q", s.Name, s.Env(), f.Usage)
		}
		p := reflect.ValueOf(s.Field(&cfg)).Pointer()
		for i := range base.NumField() {
			if base.Field(i).Addr().Pointer() == p {
				fields[base.Type().Field(i).Name] = true
			}
		}
	}
	notSettings := map[string]bool{"ModelSetup": true, "AuthCacheTTL": true}
	for i := range base.NumField() {
		name := base.Type().Field(i).Name
		if !fields[name] && !notSettings[name] {
			t.Errorf("Config.%s has no line in the settings table", name)
		}
	}
}

// TestSettingsFromEnvironment: variables fill the flags' defaults (a flag
// still wins), flagless keys are read, the serve defaults apply, and a
// malformed value is an error naming the variable.
func TestSettingsFromEnvironment(t *testing.T) {
	t.Setenv("SERVICE_JOB_TIMEOUT", "90s")
	t.Setenv("SERVICE_SECRETS_KEY", "k")
	t.Setenv("SERVICE_S3_ALLOWED_BUCKETS", "a, b,")
	t.Setenv("SERVICE_ALLOW_PRIVATE_WEBHOOKS", "true")
	t.Setenv("SERVICE_RERANKER_URL", "http://127.0.0.1:9/")
	t.Setenv("SERVICE_ASSISTANT_MODEL", "openai_gpt_4_1")
	cfg := server.Defaults()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	if err := server.BindFlags(fs, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--max-workers", "3"}); err != nil {
		t.Fatal(err)
	}
	if cfg.JobTimeout != 90*time.Second || cfg.SecretsKey != "k" || !reflect.DeepEqual(cfg.S3AllowedBuckets, []string{"a", "b"}) ||
		!cfg.AllowPrivateWebhooks || cfg.MaxWorkers != 3 || cfg.RerankerURL != "http://127.0.0.1:9/" || cfg.AssistantModel != "openai_gpt_4_1" {
		t.Errorf("config: %+v", cfg)
	}
	if cfg.SMTPAddr != "127.0.0.1:2525" {
		t.Errorf("serve's SMTP address %q", cfg.SMTPAddr)
	}
	t.Setenv("SERVICE_MAX_WORKERS", "many")
	if _, err := server.FromEnvironment(); err == nil || !strings.Contains(err.Error(), "SERVICE_MAX_WORKERS") {
		t.Errorf("malformed variable: %v", err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}
