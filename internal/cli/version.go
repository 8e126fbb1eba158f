package cli

import (
	"io"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(versionCommand) }

// versionCommand is `agentry version get|set|clear` (GET and PUT /version).
func versionCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Show or pin the API version of your account",
		Long: `Every request resolves to a dated API version: its Service-Version header
(--api-version), else the account's pinned version, else the default. Pinning
needs the owner or admin role.`,
	}
	show := func(cmd *cobra.Command, v *client.APIVersionResponse) error {
		return a.print(cmd, v, func(w io.Writer) error { return versionTable(w, v) })
	}
	// PUT /version answers with what the request itself resolved to, which
	// is the state before the pin changed; a user who just pinned wants to
	// see the pin at work, so ask again.
	showAfter := func(cmd *cobra.Command, c *client.Client) error {
		v, err := c.GetVersion(cmd.Context())
		if err != nil {
			return err
		}
		return show(cmd, v)
	}
	get := &cobra.Command{
		Use:   "get",
		Short: "Show the pinned and effective API versions",
		Example: `  agentry version get
  agentry version get --api-version 2026-07-27   # what a request with this header resolves to`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			v, err := c.GetVersion(cmd.Context())
			if err != nil {
				return err
			}
			return show(cmd, v)
		},
	}
	set := &cobra.Command{
		Use:   "set DATE",
		Short: "Pin the account to an API version (YYYY-MM-DD)",
		Long: `Pin the account to a dated version. Any date is accepted and resolves to
the newest known version on or before it, so pinning to a future date picks
up later releases.`,
		Example: `  agentry version set 2026-07-27
  agentry --account-id 0190… version set 2026-07-01   # pin an organization`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if _, err := c.SetVersion(cmd.Context(), args[0]); err != nil {
				return err
			}
			return showAfter(cmd, c)
		},
	}
	clear := &cobra.Command{
		Use:     "clear",
		Short:   "Remove the account's pinned API version",
		Example: `  agentry version clear`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if _, err := c.ClearVersion(cmd.Context()); err != nil {
				return err
			}
			return showAfter(cmd, c)
		},
	}
	cmd.AddCommand(get, set, clear)
	return cmd
}

func versionTable(w io.Writer, v *client.APIVersionResponse) error {
	pinned := "-"
	if v.PinnedVersion != nil {
		pinned = *v.PinnedVersion
	}
	return writeFields(w, [][2]string{
		{"Effective", v.EffectiveVersion},
		{"Pinned", pinned},
		{"Default", v.DefaultVersion},
		{"Latest", v.LatestVersion},
		{"Known", strings.Join(v.KnownVersions, ", ")},
	})
}
