package sso

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/ini.v1"
)

// DefaultProfile is the profile used when none is selected.
const DefaultProfile = "default"

// Keys of a profile section in the configuration file.
const (
	KeyDomain       = "sso_domain"
	KeyClientID     = "sso_client_id"
	KeyRegion       = "sso_region"
	KeyAccountID    = "sso_account_id"
	KeyClientSecret = "sso_client_secret"
)

// ErrProfileNotFound is returned when a profile other than the default is
// selected but the configuration file has no section for it.
var ErrProfileNotFound = errors.New("profile not found in the configuration file")

// Profile is one SSO profile after the environment overrides are applied.
// Every field is optional in the file: a profile may hold only
// sso_account_id and take the identity provider from the environment.
type Profile struct {
	Name string
	// Domain names the identity provider; see Issuer for how it maps to an
	// issuer URL.
	Domain       string
	ClientID     string
	Region       string
	AccountID    string // X-Account-Id for requests made with this profile
	ClientSecret string // only for providers that insist on one; PKCE needs none
}

// Configured reports whether the profile names an identity provider and a
// client, which is all a login needs.
func (p Profile) Configured() bool { return p.Domain != "" && p.ClientID != "" }

// ConfigDir is SERVICE_CONFIG_DIR, or ~/.service.
func ConfigDir(getenv Getenv) (string, error) {
	if d := getenv.get(EnvConfigDir); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory for ~/.service (set %s): %w", EnvConfigDir, err)
	}
	return filepath.Join(home, ".service"), nil
}

// ConfigPath is the configuration file inside dir.
func ConfigPath(dir string) string { return filepath.Join(dir, "config") }

// ProfileName is name when given, else SERVICE_PROFILE, else "default".
func ProfileName(name string, getenv Getenv) string {
	if name != "" {
		return name
	}
	if n := getenv.get(EnvProfile); n != "" {
		return n
	}
	return DefaultProfile
}

// sectionName maps a profile to its INI section: [default] for the default
// profile, [profile NAME] for the others.
func sectionName(profile string) string {
	if profile == DefaultProfile {
		return DefaultProfile
	}
	return "profile " + profile
}

// LoadProfile reads profile name from the configuration file in dir and
// applies SERVICE_SSO_DOMAIN, SERVICE_SSO_CLIENT_ID, SERVICE_SSO_REGION (and
// SERVICE_SSO_CLIENT_SECRET) over it. A missing file or a missing [default]
// section is an empty default profile; a missing named profile is
// ErrProfileNotFound, because selecting it was deliberate.
func LoadProfile(dir, name string, getenv Getenv) (Profile, error) {
	p := Profile{Name: name}
	f, err := loadFile(ConfigPath(dir))
	if err != nil {
		return p, err
	}
	if sec, err := f.GetSection(sectionName(name)); err == nil {
		p.Domain = sec.Key(KeyDomain).String()
		p.ClientID = sec.Key(KeyClientID).String()
		p.Region = sec.Key(KeyRegion).String()
		p.AccountID = sec.Key(KeyAccountID).String()
		p.ClientSecret = sec.Key(KeyClientSecret).String()
	} else if name != DefaultProfile {
		return p, fmt.Errorf("%w: %q in %s", ErrProfileNotFound, name, ConfigPath(dir))
	}
	override := func(dst *string, env string) {
		if v := getenv.get(env); v != "" {
			*dst = v
		}
	}
	override(&p.Domain, EnvDomain)
	override(&p.ClientID, EnvClientID)
	override(&p.Region, EnvRegion)
	override(&p.ClientSecret, EnvClientSecret)
	return p, nil
}

// SaveProfile writes p's values into its section of the configuration file
// in dir, keeping every other section and key. Empty values remove their
// key. The file is written with mode 0600: it may hold a client secret.
func SaveProfile(dir string, p Profile) error {
	path := ConfigPath(dir)
	f, err := loadFile(path)
	if err != nil {
		return err
	}
	sec := f.Section(sectionName(p.Name))
	set := func(key, value string) {
		if value == "" {
			sec.DeleteKey(key)
			return
		}
		sec.Key(key).SetValue(value)
	}
	set(KeyDomain, p.Domain)
	set(KeyClientID, p.ClientID)
	set(KeyRegion, p.Region)
	set(KeyAccountID, p.AccountID)
	set(KeyClientSecret, p.ClientSecret)
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// ListProfiles names the profiles the configuration file in dir defines.
func ListProfiles(dir string) ([]string, error) {
	f, err := loadFile(ConfigPath(dir))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range f.SectionStrings() {
		switch {
		case s == DefaultProfile:
			names = append(names, s)
		case strings.HasPrefix(s, "profile "):
			names = append(names, strings.TrimSpace(strings.TrimPrefix(s, "profile ")))
		}
	}
	return names, nil
}

// loadFile parses the configuration file; a missing file is empty.
func loadFile(path string) (*ini.File, error) {
	// The unnamed section is not a profile: keep it out of the way so that
	// [default] is an ordinary section of ours.
	opts := ini.LoadOptions{Loose: true, SkipUnrecognizableLines: false}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ini.Empty(opts), nil
	}
	if err != nil {
		return nil, err
	}
	f, err := ini.LoadSources(opts, b)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return f, nil
}

// writeFileAtomic replaces path with data, mode 0600, creating its directory
// with mode 0700. Writing a temporary file and renaming it means a reader in
// another process sees the old file or the new one, never half of one.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
