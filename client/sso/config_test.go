package sso

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) Getenv { return func(k string) string { return m[k] } }

func TestLoadProfileSectionsAndOverrides(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `
[default]
sso_domain = login.example.com
sso_client_id = cli-default
sso_region = eu

[profile work]
sso_account_id = 0190a3c4-0000-7000-8000-000000000001
`)
	p, err := LoadProfile(dir, DefaultProfile, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if p.Domain != "login.example.com" || p.ClientID != "cli-default" || p.Region != "eu" || p.AccountID != "" {
		t.Fatalf("default profile = %+v", p)
	}
	// A profile that holds only sso_account_id is complete: the provider
	// comes from the environment.
	w, err := LoadProfile(dir, "work", env(map[string]string{EnvDomain: "https://idp.test/realms/x", EnvClientID: "from-env", EnvRegion: "us"}))
	if err != nil {
		t.Fatal(err)
	}
	if w.AccountID != "0190a3c4-0000-7000-8000-000000000001" || w.Domain != "https://idp.test/realms/x" || w.ClientID != "from-env" || w.Region != "us" {
		t.Fatalf("work profile = %+v", w)
	}
	// The environment wins over the file.
	d, _ := LoadProfile(dir, DefaultProfile, env(map[string]string{EnvClientID: "override"}))
	if d.ClientID != "override" || d.Domain != "login.example.com" {
		t.Fatalf("override = %+v", d)
	}
	if _, err := LoadProfile(dir, "missing", env(nil)); !errors.Is(err, ErrProfileNotFound) {
		t.Fatalf("missing profile: %v", err)
	}
	// No file at all: an empty default profile, not an error.
	e, err := LoadProfile(t.TempDir(), DefaultProfile, env(nil))
	if err != nil || e.Configured() {
		t.Fatalf("no file: %+v, %v", e, err)
	}
}

func TestProfileNameAndConfigDir(t *testing.T) {
	if n := ProfileName("", env(map[string]string{EnvProfile: "work"})); n != "work" {
		t.Fatalf("SERVICE_PROFILE ignored: %q", n)
	}
	if n := ProfileName("cli", env(map[string]string{EnvProfile: "work"})); n != "cli" {
		t.Fatalf("explicit name must win: %q", n)
	}
	if n := ProfileName("", env(nil)); n != DefaultProfile {
		t.Fatalf("default: %q", n)
	}
	if d, _ := ConfigDir(env(map[string]string{EnvConfigDir: "/x/y"})); d != "/x/y" {
		t.Fatalf("SERVICE_CONFIG_DIR ignored: %q", d)
	}
	t.Setenv("HOME", "/home/someone")
	if d, _ := ConfigDir(env(nil)); d != filepath.Join("/home/someone", ".service") {
		t.Fatalf("default dir: %q", d)
	}
}

func TestSaveProfileKeepsOtherSectionsAndIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	writeConfig(t, dir, "# mine\n[profile other]\nsso_account_id = keep-me\n")
	if err := SaveProfile(dir, Profile{Name: "work", Domain: "d.example", ClientID: "c", AccountID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := SaveProfile(dir, Profile{Name: DefaultProfile, Domain: "x"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(ConfigPath(dir))
	s := string(b)
	for _, want := range []string{"[profile other]", "keep-me", "[profile work]", "sso_domain", "d.example", "[default]"} {
		if !strings.Contains(s, want) {
			t.Errorf("config lacks %q:\n%s", want, s)
		}
	}
	st, _ := os.Stat(ConfigPath(dir))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("config mode = %v", st.Mode().Perm())
	}
	names, _ := ListProfiles(dir)
	if strings.Join(names, ",") != "other,work,default" {
		t.Fatalf("profiles = %v", names)
	}
	// Clearing a value removes the key.
	if err := SaveProfile(dir, Profile{Name: "work", Domain: "d.example"}); err != nil {
		t.Fatal(err)
	}
	p, _ := LoadProfile(dir, "work", env(nil))
	if p.ClientID != "" || p.AccountID != "" {
		t.Fatalf("cleared keys survive: %+v", p)
	}
}

func writeConfig(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ConfigPath(dir), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
