// Package cli is the command-line client: `agentry <resource> <verb>` for
// every operation of the API, built on the public client package, plus the
// SSO commands (`agentry auth …`, `agentry configure sso`). It owns the
// global client flags, output formatting (JSON or tables), progress bars
// and exit codes. Each API area adds one file that registers its commands.
package cli

import (
	"github.com/agentry/agentry/internal/buildinfo"
	"os"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
	"github.com/spf13/cobra"
)

// App is the state the client commands share: the global flags, read when a
// command runs.
type App struct {
	APIKey     string
	Profile    string
	AccountID  string
	APIVersion string
	BaseURL    string
	Output     string
	// Getenv reads the SERVICE_* variables; os.Getenv.
	Getenv func(string) string
}

// Command groups shown by `agentry --help`.
const (
	groupAPI  = "api"
	groupAuth = "auth"
)

// Register adds the client commands and global flags to root. They read
// the SERVICE_* variables from the process's environment.
func Register(root *cobra.Command) { RegisterEnv(root, os.Getenv) }

// RegisterEnv is Register reading the environment through getenv instead,
// so that commands built side by side in one process (the tests) each see
// an environment of their own.
func RegisterEnv(root *cobra.Command, getenv func(string) string) {
	a := &App{Getenv: getenv}
	pf := root.PersistentFlags()
	pf.StringVar(&a.APIKey, "api-key", "", "API key to send as X-API-Key (default: $SERVICE_API_KEY, then the SSO login)")
	pf.StringVar(&a.Profile, "profile", "", "SSO profile of ~/.service/config (default: $SERVICE_PROFILE, then \"default\")")
	pf.StringVar(&a.AccountID, "account-id", "", "organization account to act in (X-Account-Id)")
	pf.StringVar(&a.APIVersion, "api-version", "", "API version to request, YYYY-MM-DD (Service-Version)")
	pf.StringVar(&a.BaseURL, "base-url", "", "server URL (default: $SERVICE_API_URL, then "+client.DefaultBaseURL+")")
	pf.StringVarP(&a.Output, "output", "o", "", "output format: json or table (default: table on a terminal, json otherwise)")

	root.AddGroup(&cobra.Group{ID: groupAPI, Title: "API commands:"},
		&cobra.Group{ID: groupAuth, Title: "Sign-in and configuration:"})
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	if root.Version == "" {
		// --version: the build Go stamped into the binary; the server logs
		// the same line when it starts.
		root.Version = buildinfo.Read().String()
		root.SetVersionTemplate("agentry {{.Version}}\n")
	}
	if root.Example == "" {
		root.Example = rootExamples
	}
	for _, build := range commands {
		cmd := build.new(a)
		cmd.GroupID = build.group
		a.explainErrors(cmd)
		root.AddCommand(cmd)
	}
}

const rootExamples = `  agentry serve                      # start the platform; it prints an API key on first start
  export SERVICE_API_KEY=agk_…
  agentry agents create --name helper --template simple_qa
  agentry runs stream AGENT_ID --input "What is Agentry? Agentry is a self-hostable agent platform."
  agentry models list -o table
  agentry auth login                 # or sign in with single sign-on (see: agentry configure sso --help)
  agentry --profile work --account-id 0190… me`

// Client builds the API client from the global flags; everything not given
// by a flag comes from the environment and the configuration file, as the
// client package resolves it.
func (a *App) Client() (*client.Client, error) {
	opts := []client.Option{client.WithUserAgent("agentry-cli"), client.WithEnv(a.Getenv)}
	if a.BaseURL != "" {
		opts = append(opts, client.WithBaseURL(a.BaseURL))
	}
	if a.APIKey != "" {
		opts = append(opts, client.WithAPIKey(a.APIKey))
	}
	if a.Profile != "" {
		opts = append(opts, client.WithProfile(a.Profile))
	}
	if a.AccountID != "" {
		opts = append(opts, client.WithAccountID(a.AccountID))
	}
	if a.APIVersion != "" {
		opts = append(opts, client.WithAPIVersion(a.APIVersion))
	}
	return client.New(opts...)
}

// ssoProfile loads the selected SSO profile and the configuration directory.
func (a *App) ssoProfile() (string, sso.Profile, error) {
	dir, err := sso.ConfigDir(a.Getenv)
	if err != nil {
		return "", sso.Profile{}, err
	}
	p, err := sso.LoadProfile(dir, sso.ProfileName(a.Profile, a.Getenv), a.Getenv)
	return dir, p, err
}
