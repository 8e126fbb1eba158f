package s3

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Settings are what the operator's environment says about reaching S3:
// credentials, region and endpoint.
type Settings struct {
	Credentials Credentials
	Region      string // "" when nothing names one
	Endpoint    string // "" for Amazon S3
	Profile     string // the shared-file profile the credentials came from ("" from the environment)
}

// ErrNoCredentials is an environment without credentials this package
// can use.
var ErrNoCredentials = errors.New("no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY " +
	"(and AWS_SESSION_TOKEN for temporary ones), or keys in the shared credentials file (~/.aws/credentials, " +
	"profile from AWS_PROFILE); instance roles, SSO, assumed roles and credential processes are not read")

// unsupportedKeys name profile settings that get credentials some other
// way (SSO, role assumption, an external process): a profile relying on
// them is refused with its name rather than silently ignored.
var unsupportedKeys = []string{"sso_session", "sso_start_url", "sso_account_id", "role_arn", "credential_process",
	"credential_source", "web_identity_token_file"}

// LoadSettings reads the settings the AWS command-line tools would use,
// for the sources this package supports: the environment variables
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION, AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL)
// and the shared credentials and config files (AWS_SHARED_CREDENTIALS_FILE,
// AWS_CONFIG_FILE, by default under ~/.aws) for the profile named, or
// AWS_PROFILE, or "default". Credentials in the environment come first
// unless a profile is named explicitly. Instance metadata (IMDS),
// container credentials, SSO, assumed roles and credential processes are
// not read. Without credentials it returns ErrNoCredentials together
// with the region and endpoint it found.
func LoadSettings(profile string) (Settings, error) {
	explicit := profile != ""
	if profile == "" {
		profile = firstEnv("AWS_PROFILE", "AWS_DEFAULT_PROFILE")
	}
	if profile == "" {
		profile = "default"
	}
	creds, err := readShared(sharedPath("AWS_SHARED_CREDENTIALS_FILE", "credentials"), profile, false)
	if err != nil {
		return Settings{}, err
	}
	conf, err := readShared(sharedPath("AWS_CONFIG_FILE", "config"), profile, true)
	if err != nil {
		return Settings{}, err
	}
	var s Settings
	s.Region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
	if s.Region == "" {
		s.Region = conf["region"]
	}
	if !strings.EqualFold(os.Getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true") {
		s.Endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	}
	if id, secret := firstEnv("AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY"), firstEnv("AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY"); !explicit && id != "" && secret != "" {
		s.Credentials = Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: os.Getenv("AWS_SESSION_TOKEN")}
		return s, nil
	}
	// The credentials file first, then keys written in the config file,
	// as the AWS tools look for them.
	for _, m := range []map[string]string{creds, conf} {
		if m["aws_access_key_id"] != "" && m["aws_secret_access_key"] != "" {
			s.Credentials = Credentials{AccessKeyID: m["aws_access_key_id"], SecretAccessKey: m["aws_secret_access_key"], SessionToken: m["aws_session_token"]}
			s.Profile = profile
			return s, nil
		}
	}
	for _, m := range []map[string]string{creds, conf} {
		for _, k := range unsupportedKeys {
			if m[k] != "" {
				return s, fmt.Errorf("%w (profile %q gets them through %s)", ErrNoCredentials, profile, k)
			}
		}
	}
	if explicit && creds == nil && conf == nil {
		return s, fmt.Errorf("%w (no profile %q in the shared files)", ErrNoCredentials, profile)
	}
	return s, ErrNoCredentials
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// sharedPath is the shared file the variable names, or ~/.aws/name.
func sharedPath(variable, name string) string {
	if p := os.Getenv(variable); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".aws", name)
}

// maxSharedFile bounds what is read of a shared file.
const maxSharedFile = 1 << 20

// readShared returns the settings of profile in the INI-style shared file
// at path (nil when the file or the profile is absent). In the config
// file, profiles other than "default" are sections "[profile NAME]".
func readShared(path, profile string, configFile bool) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("aws shared file: %w", err)
	}
	defer f.Close()
	want := profile
	if configFile && profile != "default" {
		want = "profile " + profile
	}
	var out map[string]string
	in := false
	sc := bufio.NewScanner(&limitedFile{f: f, left: maxSharedFile})
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			name := strings.Join(strings.Fields(line[1:len(line)-1]), " ")
			in = name == want
			if in && out == nil {
				out = map[string]string{}
			}
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		out[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("aws shared file %s: %w", path, err)
	}
	return out, nil
}

type limitedFile struct {
	f    *os.File
	left int64
}

func (l *limitedFile) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("larger than %d bytes", maxSharedFile)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	return n, err
}
