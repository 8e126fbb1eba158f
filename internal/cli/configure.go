package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/agentry/agentry/client/sso"
	"github.com/spf13/cobra"
)

func init() { addAuthCommand(configureCommand) }

// configureCommand is `agentry configure sso`.
func configureCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "configure",
		Short: "Write settings to the configuration file (~/.service/config)",
	}
	cmd.AddCommand(configureSSOCommand(a))
	return cmd
}

func configureSSOCommand(a *App) *cobra.Command {
	var in sso.Profile
	cmd := &cobra.Command{
		Use:   "sso",
		Short: "Write the SSO settings of a profile",
		Long: `Write the identity provider settings of a profile to the configuration
file: [default], or [profile NAME] with --profile. Values not given keep
their current setting; an empty value (--sso-region "") removes it. On a
terminal, running it without flags asks for each value.

The domain names the OIDC issuer: a full URL is used as it is
(https://login.example.com/realms/acme); a host gets https:// in front; and
{region} in it is replaced by the region (login.{region}.example.com).`,
		Example: `  agentry configure sso --sso-domain login.example.com --sso-client-id agentry-cli
  agentry configure sso --profile eu --sso-domain 'login.{region}.example.com' --sso-region eu-west-1 --sso-client-id agentry-cli
  agentry configure sso --profile acme --sso-account-id 0190a3c4-…   # act in an organization`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := sso.ConfigDir(a.Getenv)
			if err != nil {
				return err
			}
			name := sso.ProfileName(a.Profile, a.Getenv)
			// The file's own values: environment overrides are not written back.
			cur, err := sso.LoadProfile(dir, name, nil)
			if err != nil && !errors.Is(err, sso.ErrProfileNotFound) {
				return err
			}
			cur.Name = name
			fields := []struct {
				flag, label string
				dst, val    *string
			}{
				{"sso-domain", "SSO domain (issuer URL or host)", &cur.Domain, &in.Domain},
				{"sso-client-id", "SSO client id", &cur.ClientID, &in.ClientID},
				{"sso-region", "SSO region", &cur.Region, &in.Region},
				{"sso-account-id", "Account id (X-Account-Id, optional)", &cur.AccountID, &in.AccountID},
				{"sso-client-secret", "Client secret (only if the provider requires one)", &cur.ClientSecret, &in.ClientSecret},
			}
			changed := 0
			for _, f := range fields {
				if cmd.Flags().Changed(f.flag) {
					*f.dst = strings.TrimSpace(*f.val)
					changed++
				}
			}
			if changed == 0 {
				if !stdinIsTerminal(cmd) {
					return usageErrorf("nothing to configure: give --sso-domain, --sso-client-id, --sso-region, --sso-account-id or --sso-client-secret")
				}
				r := bufio.NewReader(cmd.InOrStdin())
				for _, f := range fields {
					v, err := prompt(cmd.ErrOrStderr(), r, f.label, *f.dst)
					if err != nil {
						return err
					}
					*f.dst = v
				}
			}
			if cur.AccountID != "" && !uuidShape.MatchString(cur.AccountID) {
				return usageErrorf("--sso-account-id %q is not an account id (a UUID, as `agentry me` shows)", cur.AccountID)
			}
			if cur.Domain != "" && (!strings.Contains(cur.Domain, sso.RegionPlaceholder) || cur.Region != "") {
				if _, err := sso.IssuerURL(cur.Domain, cur.Region); err != nil {
					return usageErrorf("%v", err)
				}
			}
			if err := sso.SaveProfile(dir, cur); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Saved profile %q in %s.\n", name, sso.ConfigPath(dir))
			shown := profileView{Profile: name, ConfigFile: sso.ConfigPath(dir), Domain: cur.Domain, ClientID: cur.ClientID,
				Region: cur.Region, AccountID: cur.AccountID, HasSecret: cur.ClientSecret != ""}
			return a.print(cmd, shown, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Profile", shown.Profile}, {"Config file", shown.ConfigFile},
					{"SSO domain", orNone(shown.Domain)}, {"SSO client id", orNone(shown.ClientID)},
					{"SSO region", orNone(shown.Region)}, {"Account id", orNone(shown.AccountID)}})
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Domain, "sso-domain", "", "identity provider: issuer URL, or host (https:// is added); may contain {region}")
	f.StringVar(&in.ClientID, "sso-client-id", "", "OAuth client id registered for the command line")
	f.StringVar(&in.Region, "sso-region", "", "region substituted for {region} in the domain")
	f.StringVar(&in.AccountID, "sso-account-id", "", "organization account requests of this profile act in")
	f.StringVar(&in.ClientSecret, "sso-client-secret", "", "client secret, only for providers that require one")
	return cmd
}

var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// profileView is a profile as shown after saving (the secret only as a flag).
type profileView struct {
	Profile    string `json:"profile"`
	ConfigFile string `json:"config_file"`
	Domain     string `json:"sso_domain,omitempty"`
	ClientID   string `json:"sso_client_id,omitempty"`
	Region     string `json:"sso_region,omitempty"`
	AccountID  string `json:"sso_account_id,omitempty"`
	HasSecret  bool   `json:"has_client_secret"`
}

// prompt asks for one value, offering the current one as the default.
func prompt(w io.Writer, r *bufio.Reader, label, current string) (string, error) {
	if current != "" {
		fmt.Fprintf(w, "%s [%s]: ", label, current)
	} else {
		fmt.Fprintf(w, "%s: ", label)
	}
	line, err := r.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if v := strings.TrimSpace(line); v != "" {
		return v, nil
	}
	return current, nil
}
