package s3

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func clearAWSEnv(t *testing.T) string {
	t.Helper()
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY", "AWS_SESSION_TOKEN",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"} {
		t.Setenv(v, "")
	}
	dir := t.TempDir()
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	return dir
}

func TestSettingsFromEnvironment(t *testing.T) {
	clearAWSEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
	t.Setenv("AWS_SESSION_TOKEN", "envtoken")
	t.Setenv("AWS_DEFAULT_REGION", "eu-west-3")
	t.Setenv("AWS_ENDPOINT_URL", "http://generic:9000")
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://s3only:9000")
	s, err := LoadSettings("")
	if err != nil {
		t.Fatal(err)
	}
	if s.Credentials != (Credentials{"AKIAENV", "envsecret", "envtoken"}) || s.Region != "eu-west-3" || s.Endpoint != "http://s3only:9000" {
		t.Fatalf("%+v", s)
	}
	t.Setenv("AWS_REGION", "ap-south-1")
	t.Setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
	if s, _ := LoadSettings(""); s.Region != "ap-south-1" || s.Endpoint != "" {
		t.Fatalf("%+v", s)
	}
}

func TestSettingsFromSharedFiles(t *testing.T) {
	dir := clearAWSEnv(t)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("credentials", `
# comment
[default]
aws_access_key_id = AKIADEFAULT
aws_secret_access_key = defaultsecret

[work]
aws_access_key_id=AKIAWORK
aws_secret_access_key=worksecret
aws_session_token = worktoken
`)
	write("config", `
[default]
region = us-west-2
[profile work]
region = eu-north-1
[profile sso]
sso_start_url = https://example.awsapps.com/start
[profile inconfig]
aws_access_key_id = AKIACONFIG
aws_secret_access_key = configsecret
`)
	s, err := LoadSettings("")
	if err != nil || s.Credentials.AccessKeyID != "AKIADEFAULT" || s.Region != "us-west-2" || s.Profile != "default" {
		t.Fatalf("default: %+v %v", s, err)
	}
	t.Setenv("AWS_PROFILE", "work")
	s, err = LoadSettings("")
	if err != nil || s.Credentials != (Credentials{"AKIAWORK", "worksecret", "worktoken"}) || s.Region != "eu-north-1" {
		t.Fatalf("AWS_PROFILE=work: %+v %v", s, err)
	}
	if s, err := LoadSettings("inconfig"); err != nil || s.Credentials.AccessKeyID != "AKIACONFIG" {
		t.Fatalf("keys in the config file: %+v %v", s, err)
	}
	// The environment's keys come before the files, unless a profile is
	// named explicitly.
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
	if s, _ := LoadSettings(""); s.Credentials.AccessKeyID != "AKIAENV" {
		t.Fatalf("env first: %+v", s)
	}
	if s, _ := LoadSettings("work"); s.Credentials.AccessKeyID != "AKIAWORK" {
		t.Fatalf("explicit profile: %+v", s)
	}
	// A profile that gets its credentials some other way is named.
	if _, err := LoadSettings("sso"); !errors.Is(err, ErrNoCredentials) || !strings.Contains(err.Error(), "sso_start_url") {
		t.Fatalf("sso profile: %v", err)
	}
	if _, err := LoadSettings("nosuch"); !errors.Is(err, ErrNoCredentials) || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Fatalf("missing profile: %v", err)
	}
}

func TestNoCredentials(t *testing.T) {
	clearAWSEnv(t)
	t.Setenv("AWS_REGION", "eu-west-1")
	s, err := LoadSettings("")
	if !errors.Is(err, ErrNoCredentials) || s.Region != "eu-west-1" {
		t.Fatalf("%+v %v", s, err)
	}
}
