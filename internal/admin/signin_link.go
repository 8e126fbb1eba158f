package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/web"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// signinLinkCommand is `agentry admin signin-link USER`: a one-time link
// to the web console that signs the user in (single use, 15 minutes).
func signinLinkCommand(o *options) *cobra.Command {
	var base string
	c := &cobra.Command{
		Use:   "signin-link USER",
		Short: "Print a one-time link that signs a user in to the web console",
		Long: `Prints a link to the web console that signs USER (a user id or e-mail
address) in: it works once, within 15 minutes. The link starts with
--url, else SERVICE_PUBLIC_URL, else http://SERVICE_ADDR.`,
		Example: "  agentry admin signin-link ada@example.com",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if base == "" {
				cfg, err := o.serverConfig()
				if err != nil {
					return err
				}
				base = cfg.ConsoleURL()
			}
			return o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
				u, err := findUser(ctx, db, args[0])
				if err != nil {
					return err
				}
				link, err := web.NewSigninLink(ctx, db, u.ID)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(out, "%s%s\n", strings.TrimRight(base, "/"), link)
				return err
			})(cmd, args)
		},
	}
	c.Flags().StringVar(&base, "url", "", "the console's public address (default SERVICE_PUBLIC_URL, else http://SERVICE_ADDR)")
	return c
}

// findUser reads a user by id or, for anything that is not a UUID, e-mail.
func findUser(ctx context.Context, db *store.DB, ref string) (directory.User, error) {
	var (
		u   directory.User
		err error
	)
	if _, perr := uuid.Parse(ref); perr == nil {
		u, err = directory.GetUser(ctx, db, ref)
	} else {
		u, err = directory.UserByEmail(ctx, db, ref)
	}
	if errors.Is(err, store.ErrNotFound) {
		return u, fmt.Errorf("no user %s (give a user id or e-mail address; `agentry admin users list`)", ref)
	}
	return u, err
}
