package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func init() { addAPICommand(secretsCommand) }

// maxSecretInput bounds what set reads: one byte past the server's limit,
// so an oversized value is refused by the server with its own message.
const maxSecretInput = 16<<10 + 1

// secretsCommand is `agentry secrets list|set|delete` (an extension).
func secretsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets",
		Short: "Manage the account's write-only secrets (an Agentry extension)",
		Long: `Account secrets are values stored on the server, sealed at rest, that agent
definitions name as {{secrets.NAME}} instead of holding them (the S3 keys of
write_aws_s3_object, MCP tool headers, alert webhook keys). Values are
write-only: nothing ever shows them again. Each secret is bound to the hosts
it may be sent to (--host), and is sent nowhere else, whoever writes the step
that uses it. Storing, binding and deleting need the owner or admin role.`,
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the account's secrets by name (never their values)",
		Example: `  agentry secrets list -o table`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			out := []client.Secret{}
			for s, err := range c.Secrets(cmd.Context()) {
				if err != nil {
					return err
				}
				out = append(out, s)
			}
			return a.print(cmd, out, func(w io.Writer) error {
				rows := make([][]string, len(out))
				for i, s := range out {
					rows[i] = []string{s.Name, strings.Join(s.Hosts, " "), s.CreatedAt, s.UpdatedAt}
				}
				return writeTable(w, []string{"Name", "Hosts", "Created", "Updated"}, rows)
			})
		},
	}
	var fromFile string
	var hosts []string
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Store a secret, or replace its value",
		Long: `Store a value under NAME, bound to the hosts it may be sent to (--host, once
per host; required for a new secret, and replacing the hosts of an existing
one; without it an existing secret keeps its hosts). A host is a name or
address with an optional :port (without a port only 443 for https and 80 for
http match), or *.domain for every subdomain.

The value is never taken from the command line, where other users and shell
history could see it: it is read from a file (--from-file, exactly as it
is), from standard input when it is piped (one trailing newline dropped),
or typed at a hidden prompt.`,
		Example: `  agentry secrets set S3_SECRET_KEY --host minio.example.net:9000   # prompts, input hidden
  printf %s "$KEY" | agentry secrets set S3_SECRET_KEY
  agentry secrets set WEATHER_TOKEN --host mcp.weather.example --from-file ./token`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			value, err := readSecretValue(cmd, args[0], fromFile)
			if err != nil {
				return err
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := c.SetSecret(cmd.Context(), args[0], value, hosts)
			if err != nil {
				return err
			}
			verb := "replaced"
			if s.Created {
				verb = "stored"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s secret %s; reference it as {{secrets.%s}}\n", verb, s.Name, s.Name)
			return a.print(cmd, s, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Name", s.Name}, {"Hosts", strings.Join(s.Hosts, " ")}, {"Created", s.CreatedAt}, {"Updated", s.UpdatedAt}})
			})
		},
	}
	set.Flags().StringVar(&fromFile, "from-file", "", "read the value from this file, byte for byte")
	set.Flags().StringArrayVar(&hosts, "host", nil, "a host the secret may be sent to (repeat for several)")
	var bindHosts []string
	bind := &cobra.Command{
		Use:   "bind NAME --host HOST [--host HOST…]",
		Short: "Set the hosts a secret may be sent to, keeping its value",
		Long: `Replace the hosts NAME may be sent to. Its value is kept. A secret stored
before secrets were bound to hosts is sent nowhere until it is bound.`,
		Example: `  agentry secrets bind S3_SECRET_KEY --host minio.example.net:9000
  agentry secrets bind API_TOKEN --host api.example.com --host *.api.example.com`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(bindHosts) == 0 {
				return usageErrorf("bind needs at least one --host")
			}
			c, err := a.Client()
			if err != nil {
				return err
			}
			s, err := c.BindSecret(cmd.Context(), args[0], bindHosts)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "secret %s may be sent to %s\n", s.Name, strings.Join(s.Hosts, ", "))
			return a.print(cmd, s, func(w io.Writer) error {
				return writeFields(w, [][2]string{{"Name", s.Name}, {"Hosts", strings.Join(s.Hosts, " ")}, {"Created", s.CreatedAt}, {"Updated", s.UpdatedAt}})
			})
		},
	}
	bind.Flags().StringArrayVar(&bindHosts, "host", nil, "a host the secret may be sent to (repeat for several)")
	del := &cobra.Command{
		Use:     "delete NAME",
		Short:   "Delete a secret",
		Long:    `Delete a secret. Steps naming it fail until it is stored again.`,
		Example: `  agentry secrets delete S3_SECRET_KEY`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteSecret(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "deleted secret %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, set, bind, del)
	return cmd
}

// readSecretValue reads a value from a file, piped standard input, or a
// prompt that does not echo.
func readSecretValue(cmd *cobra.Command, name, fromFile string) (string, error) {
	if fromFile != "" {
		f, err := os.Open(fromFile)
		if err != nil {
			return "", usageErrorf("--from-file: %v", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxSecretInput))
		if err != nil {
			return "", usageErrorf("--from-file: %v", err)
		}
		return string(b), nil
	}
	if in, ok := cmd.InOrStdin().(*os.File); ok && term.IsTerminal(int(in.Fd())) {
		fmt.Fprintf(cmd.ErrOrStderr(), "Value of %s (input hidden): ", name)
		b, err := term.ReadPassword(int(in.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxSecretInput))
	if err != nil {
		return "", err
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", usageErrorf("no value: pipe it on standard input, give --from-file, or run in a terminal to be prompted")
	}
	return v, nil
}
