// Package admin is `agentry admin`: managing accounts, organizations, users,
// memberships, API keys and credits on a database directly, without the API.
// It is for operators with access to the database, so it crosses tenants.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/envflag"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
	"github.com/spf13/cobra"
)

type options struct {
	databaseURL, dataDir, output string
	defaultCredits               float64
}

// Command returns `agentry admin` and its subcommands.
func Command() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Manage accounts, users, keys and credits directly on the database",
		Long: `Operator commands that work on the database directly (the same one
` + "`agentry serve`" + ` uses: --database-url or SQLite in --data-dir). Use them
to create users and organizations, issue and revoke API keys, and grant credits.`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&o.databaseURL, "database-url", envflag.String("SERVICE_DATABASE_URL", ""), "postgres://… or empty for SQLite in the data dir (SERVICE_DATABASE_URL)")
	pf.StringVar(&o.dataDir, "data-dir", envflag.String("SERVICE_DATA_DIR", "./agentry-data"), "data directory of the embedded database (SERVICE_DATA_DIR)")
	cmd.AddCommand(usersCommand(o), accountsCommand(o), orgsCommand(o), membersCommand(o), keysCommand(o), creditsCommand(o), jobsCommand(o), reviewsCommand(o), feedbackCommand(o), signinLinkCommand(o))
	return cmd
}

// printsTable gives commands that print a table (or JSON) their -o flag;
// the others do not list it.
func (o *options) printsTable(cmds ...*cobra.Command) {
	for _, c := range cmds {
		c.Flags().StringVarP(&o.output, "output", "o", "table", "table or json")
	}
}

// opensAccounts gives commands that create accounts their --default-credits
// flag, the opening balance of what they create.
func (o *options) opensAccounts(c *cobra.Command) {
	credits, _ := envflag.Float("SERVICE_DEFAULT_CREDITS", billing.DefaultOpeningCredits)
	c.Flags().Float64Var(&o.defaultCredits, "default-credits", credits, "opening balance of the account created (SERVICE_DEFAULT_CREDITS)")
}

// serverConfig is the configuration `agentry serve` would have with these
// database options, for commands that need the assembled services
// (server.Operator): every other setting (blob store, secrets key, model
// providers…) comes from the same SERVICE_* variables serve reads.
func (o *options) serverConfig() (server.Config, error) {
	cfg, err := server.FromEnvironment()
	cfg.DatabaseURL, cfg.DataDir = o.databaseURL, o.dataDir
	// The operator's process never listens for mail.
	cfg.SMTPAddr = ""
	return cfg, err
}

// open connects and migrates, so admin works on a database serve never saw.
func (o *options) open(ctx context.Context) (*store.DB, error) {
	db, err := store.Open(ctx, o.databaseURL, o.dataDir)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (o *options) run(fn func(ctx context.Context, db *store.DB, out io.Writer) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		db, err := o.open(cmd.Context())
		if err != nil {
			return err
		}
		defer db.Close()
		return fn(cmd.Context(), db, cmd.OutOrStdout())
	}
}

// print writes rows as a table, or v as JSON with -o json.
func (o *options) print(out io.Writer, v any, header []string, rows [][]string) error {
	if o.output == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for i, h := range header {
		if i > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, h)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func ts(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func notFound(err error, what, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s %s not found", what, id)
	}
	return err
}

func usersCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Create and list users"}
	var email, name string
	create := &cobra.Command{
		Use: "create", Short: "Create a user with a personal account",
		Example: "  agentry admin users create --email ada@example.com --name Ada",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if email == "" && name == "" {
				return errors.New("give --email or --name")
			}
			u, a, err := directory.CreateUser(ctx, db, directory.NewUser{Email: email, Name: name, OpeningCredits: o.defaultCredits})
			if errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("a user with email %s already exists", email)
			}
			if err != nil {
				return err
			}
			return o.print(out, map[string]string{"user_id": u.ID, "personal_account_id": a.ID, "email": u.Email, "name": u.Name},
				[]string{"USER", "PERSONAL ACCOUNT", "EMAIL", "NAME"}, [][]string{{u.ID, a.ID, u.Email, u.Name}})
		}),
	}
	create.Flags().StringVar(&email, "email", "", "email address")
	create.Flags().StringVar(&name, "name", "", "display name")
	list := &cobra.Command{
		Use: "list", Short: "List users",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			us, err := directory.Users(ctx, db)
			if err != nil {
				return err
			}
			var rows [][]string
			var js []map[string]string
			for _, u := range us {
				rows = append(rows, []string{u.ID, u.PersonalAccountID, u.Email, u.Name, u.OIDCSubject})
				js = append(js, map[string]string{"id": u.ID, "personal_account_id": u.PersonalAccountID, "email": u.Email, "name": u.Name, "oidc_subject": u.OIDCSubject})
			}
			return o.print(out, js, []string{"ID", "PERSONAL ACCOUNT", "EMAIL", "NAME", "OIDC SUBJECT"}, rows)
		}),
	}
	o.printsTable(create, list)
	o.opensAccounts(create)
	cmd.AddCommand(create, list)
	return cmd
}

func accountsCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "accounts", Short: "List accounts and create organization accounts"}
	cmd.AddCommand(listAccounts(o, ""), createOrg(o, "create"))
	return cmd
}

func orgsCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "orgs", Aliases: []string{"organizations"}, Short: "Create and list organizations"}
	cmd.AddCommand(listAccounts(o, directory.KindOrganization), createOrg(o, "create"))
	return cmd
}

func listAccounts(o *options, kind string) *cobra.Command {
	c := &cobra.Command{
		Use: "list", Short: "List accounts with their balances",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			as, err := directory.Accounts(ctx, db)
			if err != nil {
				return err
			}
			var rows [][]string
			var js []map[string]any
			for _, a := range as {
				if kind != "" && a.Kind != kind {
					continue
				}
				bal, err := billing.NewCredits(db).Balance(ctx, a.ID)
				if err != nil {
					return err
				}
				rows = append(rows, []string{a.ID, a.Kind, a.Name, strconv.FormatFloat(bal, 'f', -1, 64), a.APIVersion})
				js = append(js, map[string]any{"id": a.ID, "kind": a.Kind, "name": a.Name, "credits": bal, "api_version": a.APIVersion})
			}
			return o.print(out, js, []string{"ID", "KIND", "NAME", "CREDITS", "API VERSION"}, rows)
		}),
	}
	o.printsTable(c)
	return c
}

func createOrg(o *options, use string) *cobra.Command {
	var name, owner string
	c := &cobra.Command{
		Use: use, Short: "Create an organization account owned by a user",
		Example: "  agentry admin orgs create --name Acme --owner USER_ID",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if name == "" || owner == "" {
				return errors.New("give --name and --owner (a user id)")
			}
			a, err := directory.CreateOrganization(ctx, db, name, owner, o.defaultCredits)
			if err != nil {
				return notFound(err, "user", owner)
			}
			return o.print(out, map[string]string{"id": a.ID, "name": a.Name, "owner": owner},
				[]string{"ID", "NAME", "OWNER"}, [][]string{{a.ID, a.Name, owner}})
		}),
	}
	c.Flags().StringVar(&name, "name", "", "organization name")
	c.Flags().StringVar(&owner, "owner", "", "user id of the owner")
	o.printsTable(c)
	o.opensAccounts(c)
	return c
}

func membersCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "members", Aliases: []string{"memberships"}, Short: "Add, list and remove account members"}
	var account, user, role string
	add := &cobra.Command{
		Use: "add", Short: "Add a user to an account (or change their role)",
		Example: "  agentry admin members add --account ORG_ID --user USER_ID --role admin",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if !store.ValidRole(role) {
				return fmt.Errorf("--role %q: want owner, admin or member", role)
			}
			if _, err := directory.GetAccount(ctx, db, account); err != nil {
				return notFound(err, "account", account)
			}
			if err := directory.AddMember(ctx, db, account, user, role); err != nil {
				return notFound(err, "user", user)
			}
			return o.print(out, map[string]string{"account_id": account, "user_id": user, "role": role},
				[]string{"ACCOUNT", "USER", "ROLE"}, [][]string{{account, user, role}})
		}),
	}
	add.Flags().StringVar(&account, "account", "", "account id")
	add.Flags().StringVar(&user, "user", "", "user id")
	add.Flags().StringVar(&role, "role", store.RoleMember, "owner, admin or member")
	remove := &cobra.Command{
		Use: "remove", Short: "Remove a user from an account",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if err := directory.RemoveMember(ctx, db, account, user); err != nil {
				return notFound(err, "membership of user in account", user)
			}
			fmt.Fprintln(out, "removed")
			return nil
		}),
	}
	remove.Flags().StringVar(&account, "account", "", "account id")
	remove.Flags().StringVar(&user, "user", "", "user id")
	list := &cobra.Command{
		Use: "list", Short: "List the members of an account, or the accounts of a user",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			var (
				ms  []directory.Membership
				err error
			)
			switch {
			case account != "":
				ms, err = directory.MembershipsOfAccount(ctx, db, account)
			case user != "":
				ms, err = directory.MembershipsOfUser(ctx, db, user)
			default:
				return errors.New("give --account or --user")
			}
			if err != nil {
				return err
			}
			var rows [][]string
			var js []map[string]string
			for _, m := range ms {
				rows = append(rows, []string{m.AccountID, m.AccountName, m.AccountKind, m.UserID, m.Role})
				js = append(js, map[string]string{"account_id": m.AccountID, "account_name": m.AccountName, "account_kind": m.AccountKind, "user_id": m.UserID, "role": m.Role})
			}
			return o.print(out, js, []string{"ACCOUNT", "NAME", "KIND", "USER", "ROLE"}, rows)
		}),
	}
	list.Flags().StringVar(&account, "account", "", "account id")
	list.Flags().StringVar(&user, "user", "", "user id")
	o.printsTable(add, list)
	cmd.AddCommand(add, remove, list)
	return cmd
}

func keysCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Aliases: []string{"api-keys"}, Short: "Issue, list and revoke API keys"}
	var account, user, name, role string
	create := &cobra.Command{
		Use: "create", Short: "Issue an API key for an account; the key is printed once",
		Example: "  agentry admin keys create --account ACCOUNT_ID --name ci --role member",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if account == "" {
				return errors.New("give --account")
			}
			if !store.ValidRole(role) {
				return fmt.Errorf("--role %q: want owner, admin or member", role)
			}
			if _, err := directory.GetAccount(ctx, db, account); err != nil {
				return notFound(err, "account", account)
			}
			if user != "" {
				if _, err := directory.Role(ctx, db, account, user); err != nil {
					return notFound(err, "membership of user "+user+" in account", account)
				}
			}
			secret, prefix, hash := auth.NewKey()
			k, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: account, UserID: user, Name: name, Prefix: prefix, Role: role}, hash)
			if err != nil {
				return err
			}
			return o.print(out, map[string]string{"id": k.ID, "account_id": account, "name": name, "role": role, "key": secret},
				[]string{"ID", "ACCOUNT", "NAME", "ROLE", "KEY (shown once)"}, [][]string{{k.ID, account, name, role, secret}})
		}),
	}
	create.Flags().StringVar(&account, "account", "", "account the key acts in")
	create.Flags().StringVar(&user, "user", "", "user the key belongs to (optional; must be a member)")
	create.Flags().StringVar(&name, "name", "api key", "a name to recognise the key by")
	create.Flags().StringVar(&role, "role", store.RoleMember, "role the key acts with: owner, admin or member")
	list := &cobra.Command{
		Use: "list", Short: "List API keys (never their secrets)",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			list := func(ctx context.Context) ([]auth.APIKey, error) { return auth.AllAPIKeys(ctx, db) }
			if account != "" {
				list = func(ctx context.Context) ([]auth.APIKey, error) { return auth.APIKeys(ctx, db, account) }
			}
			ks, err := list(ctx)
			if err != nil {
				return err
			}
			var rows [][]string
			var js []map[string]any
			for _, k := range ks {
				state := "active"
				if k.RevokedAt != nil {
					state = "revoked"
				}
				rows = append(rows, []string{k.ID, k.AccountID, k.Name, k.Prefix + "…", k.Role, state, ts(k.LastUsedAt)})
				js = append(js, map[string]any{"id": k.ID, "account_id": k.AccountID, "user_id": k.UserID, "name": k.Name, "prefix": k.Prefix,
					"role": k.Role, "created_at": k.CreatedAt, "last_used_at": k.LastUsedAt, "revoked_at": k.RevokedAt})
			}
			return o.print(out, js, []string{"ID", "ACCOUNT", "NAME", "PREFIX", "ROLE", "STATE", "LAST USED"}, rows)
		}),
	}
	list.Flags().StringVar(&account, "account", "", "only this account's keys")
	revoke := &cobra.Command{
		Use: "revoke KEY_ID", Short: "Revoke an API key; every server refuses it within seconds", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
				if err := auth.RevokeAPIKey(ctx, db, args[0]); err != nil {
					return notFound(err, "api key", args[0])
				}
				fmt.Fprintln(out, "revoked", args[0])
				return nil
			})(cmd, args)
		},
	}
	o.printsTable(create, list)
	cmd.AddCommand(create, list, revoke)
	return cmd
}

func creditsCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "credits", Short: "Grant and show account credits"}
	var account, reason string
	var amount float64
	var recent int
	grant := &cobra.Command{
		Use: "grant ACCOUNT_ID --amount N", Short: "Add credits to an account (a negative amount takes them away)",
		Example: "  agentry admin credits grant ACCOUNT_ID --amount 5000000   # US$5 at one credit per US$0.000001",
		Args:    accountArg(&account),
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if account == "" || amount == 0 {
				return errors.New("give the account id and a non-zero --amount")
			}
			bal, err := billing.NewCredits(db).Grant(ctx, account, amount, reason, "admin")
			if err != nil {
				return notFound(err, "account", account)
			}
			return o.print(out, map[string]any{"account_id": account, "granted": amount, "balance": bal},
				[]string{"ACCOUNT", "GRANTED", "BALANCE"}, [][]string{{account, strconv.FormatFloat(amount, 'f', -1, 64), strconv.FormatFloat(bal, 'f', -1, 64)}})
		}),
	}
	grant.Flags().StringVar(&account, "account", "", "account id (or give it as the argument)")
	_ = grant.Flags().MarkHidden("account")
	grant.Flags().Float64Var(&amount, "amount", 0, "credits to add")
	grant.Flags().StringVar(&reason, "reason", "admin grant", "why, kept in the ledger")
	show := &cobra.Command{
		Use: "show ACCOUNT_ID", Short: "Show an account's balance and recent ledger entries",
		Example: "  agentry admin credits show ACCOUNT_ID --recent 5",
		Args:    accountArg(&account),
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			if account == "" {
				return errors.New("give the account id")
			}
			bal, err := billing.NewCredits(db).Balance(ctx, account)
			if err != nil {
				return notFound(err, "account", account)
			}
			entries, err := billing.NewCredits(db).Ledger(ctx, account, recent)
			if err != nil {
				return err
			}
			if o.output == "json" {
				return o.print(out, map[string]any{"account_id": account, "balance": bal, "ledger": entries}, nil, nil)
			}
			fmt.Fprintf(out, "balance: %s credits\n\n", strconv.FormatFloat(bal, 'f', -1, 64))
			var rows [][]string
			for _, e := range entries {
				rows = append(rows, []string{e.CreatedAt.Format(time.RFC3339), strconv.FormatFloat(e.Delta, 'f', -1, 64), strconv.FormatFloat(e.BalanceAfter, 'f', -1, 64), e.Reason, e.Reference})
			}
			return o.print(out, nil, []string{"WHEN", "CHANGE", "BALANCE", "REASON", "REFERENCE"}, rows)
		}),
	}
	show.Flags().StringVar(&account, "account", "", "account id (or give it as the argument)")
	_ = show.Flags().MarkHidden("account")
	show.Flags().IntVar(&recent, "recent", 20, "how many ledger entries to show")
	o.printsTable(grant, show)
	cmd.AddCommand(grant, show)
	return cmd
}

// accountArg takes the account id from the one positional argument; the
// older --account flag (hidden) still works for scripts written for it.
func accountArg(account *string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) > 1:
			return fmt.Errorf("give one ACCOUNT_ID, not %d arguments", len(args))
		case len(args) == 1 && *account != "" && *account != args[0]:
			return fmt.Errorf("the account id is given twice (%s and --account %s)", args[0], *account)
		case len(args) == 1:
			*account = args[0]
		}
		return nil
	}
}

func jobsCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{Use: "jobs", Short: "Check the job workers"}
	var wait time.Duration
	ping := &cobra.Command{
		Use: "ping", Short: "Enqueue a diagnostic job and wait until a worker has run it",
		RunE: o.run(func(ctx context.Context, db *store.DB, out io.Writer) error {
			q, err := jobs.Open(ctx, db, river.NewWorkers(), jobs.Config{})
			if err != nil {
				return err
			}
			defer q.Stop(context.Background())
			p, err := jobs.Ping(ctx, db, q, "admin ping", 0)
			if err != nil {
				return err
			}
			deadline := time.Now().Add(wait)
			for time.Now().Before(deadline) {
				got, err := jobs.PingByID(ctx, db, p.ID)
				if err != nil {
					return err
				}
				if got.FinishedAt != nil {
					fmt.Fprintf(out, "ping %s ran in %s\n", p.ID, got.FinishedAt.Sub(p.CreatedAt).Round(time.Millisecond))
					return nil
				}
				time.Sleep(100 * time.Millisecond)
			}
			fmt.Fprintf(os.Stderr, "ping %s is still queued: is `agentry serve` (role all or worker) running on this database?\n", p.ID)
			return errors.New("no worker ran the ping in time")
		}),
	}
	ping.Flags().DurationVar(&wait, "wait", 30*time.Second, "how long to wait")
	cmd.AddCommand(ping)
	return cmd
}
