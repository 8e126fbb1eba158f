package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
	"github.com/spf13/cobra"
)

func init() { addAuthCommand(authCommand) }

// authCommand is `agentry auth login|logout|status`.
func authCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in with single sign-on, log out, show the login",
		Long: `Single sign-on with the OIDC identity provider of the selected profile
(see ` + "`agentry configure sso`" + `). Tokens are cached under the configuration
directory (~/.service/sso/cache, mode 0600) and refreshed automatically.`,
	}
	cmd.AddCommand(loginCommand(a), logoutCommand(a), statusCommand(a))
	return cmd
}

func loginCommand(a *App) *cobra.Command {
	var (
		flow      string
		noBrowser bool
		listen    string
		timeout   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in through the identity provider of the profile",
		Long: `Log in with the authorization code flow and PKCE: a browser opens the
identity provider's page, and the provider redirects back to a listener on
127.0.0.1. Where no browser can be opened (--no-browser, or no display) and
the provider's discovery document advertises a device_authorization_endpoint,
the device flow is used instead: visit the URL shown on any device and enter
the code. --flow forces one or the other.`,
		Example: `  agentry auth login
  agentry auth login --profile work
  agentry auth login --flow device          # on a machine without a browser
  agentry auth login --listen 127.0.0.1:8765 # a provider that needs a fixed redirect port`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch sso.Flow(flow) {
			case sso.FlowAuto, sso.FlowBrowser, sso.FlowDevice:
			default:
				return usageErrorf("--flow must be auto, browser or device, not %q", flow)
			}
			dir, p, err := a.ssoProfile()
			if err != nil {
				return err
			}
			if !p.Configured() {
				return sso.ErrNotConfigured
			}
			var open func(string) error
			if !noBrowser && browserAvailable(a.Getenv) {
				open = openBrowser
			}
			tok, err := sso.Login(cmd.Context(), sso.LoginOptions{Profile: p, ConfigDir: dir, Flow: sso.Flow(flow),
				OpenURL: open, Out: cmd.ErrOrStderr(), ListenAddr: listen, Timeout: timeout})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "Logged in.")
			st := a.status(dir, p)
			st.fromToken(tok)
			return a.print(cmd, st, st.table)
		},
	}
	f := cmd.Flags()
	f.StringVar(&flow, "flow", string(sso.FlowAuto), "auto, browser or device")
	f.BoolVar(&noBrowser, "no-browser", false, "do not open a browser; print the URL to open instead")
	f.StringVar(&listen, "listen", "", "loopback address of the redirect listener (default 127.0.0.1 on a free port)")
	f.DurationVar(&timeout, "timeout", 5*time.Minute, "how long to wait for the login to complete")
	return cmd
}

func logoutCommand(a *App) *cobra.Command {
	return &cobra.Command{
		Use:     "logout",
		Short:   "Forget the cached tokens of the profile",
		Example: "  agentry auth logout\n  agentry auth logout --profile work",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, p, err := a.ssoProfile()
			if err != nil {
				return err
			}
			if err := sso.Logout(dir, p); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "Logged out.")
			st := a.status(dir, p)
			return a.print(cmd, st, st.table)
		},
	}
}

func statusCommand(a *App) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show which credentials commands use, and the SSO login",
		Long: `Show the credential the other commands would send (--api-key,
SERVICE_API_KEY or the SSO login), the selected profile, and whether its
login is valid. Exits with status 3 when no usable credential is found.`,
		Example: "  agentry auth status\n  agentry auth status -o json",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, p, err := a.ssoProfile()
			if err != nil {
				return err
			}
			st := a.status(dir, p)
			if err := a.print(cmd, st, st.table); err != nil {
				return err
			}
			switch {
			case st.Credential == client.SourceNone && !p.Configured():
				return sso.ErrNotConfigured
			case st.Credential == client.SourceNone, strings.HasPrefix(st.Credential, client.SourceSSOPrefix) && !st.LoggedIn:
				return sso.ErrNotLoggedIn
			}
			return nil
		},
	}
}
