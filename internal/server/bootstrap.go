package server

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/web"
)

// fmtMinutes says a duration in minutes ("15 minutes").
func fmtMinutes(d time.Duration) string { return fmt.Sprintf("%d minutes", int(d.Minutes())) }

// MinBootstrapKeyLength is the shortest SERVICE_BOOTSTRAP_API_KEY accepted:
// the key is an owner's credential, and a short one could be guessed.
const MinBootstrapKeyLength = 32

// checkBootstrapKey refuses a chosen owner key that is too short to be a
// secret, or that could never be sent back intact in a header.
func checkBootstrapKey(key string) error {
	if key == "" {
		return nil // a random key is made
	}
	if n := utf8.RuneCountInString(key); n < MinBootstrapKeyLength {
		return fmt.Errorf("SERVICE_BOOTSTRAP_API_KEY (--bootstrap-api-key) is %d characters; it must be at least %d, e.g. the output of `openssl rand -hex 32`", n, MinBootstrapKeyLength)
	}
	if strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("SERVICE_BOOTSTRAP_API_KEY (--bootstrap-api-key) must not contain spaces or control characters")
	}
	return nil
}

// bootstrap makes a new installation usable at once: on an empty database it
// creates an owner, their personal account and an API key, and prints the key
// once with a request to paste. Only one replica wins the claim.
func bootstrap(ctx context.Context, db *store.DB, cfg Config, out io.Writer) error {
	n, err := directory.AccountCount(ctx, db)
	if err != nil || n > 0 {
		return err
	}
	won, err := db.Claim(ctx, "bootstrapped", store.Now().Format("2006-01-02T15:04:05Z"))
	if err != nil || !won {
		return err
	}
	u, a, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "owner", OpeningCredits: cfg.DefaultCredits})
	if err != nil {
		return fmt.Errorf("bootstrap owner: %w", err)
	}
	secret, prefix, hash := auth.NewKey()
	fromEnv := cfg.BootstrapAPIKey != ""
	if fromEnv {
		secret = cfg.BootstrapAPIKey
		prefix, hash = auth.DisplayPrefix(secret), auth.HashKey(secret)
	}
	if _, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: a.ID, UserID: u.ID, Name: "bootstrap", Prefix: prefix, Role: store.RoleOwner}, hash); err != nil {
		return fmt.Errorf("bootstrap key: %w", err)
	}
	base := "http://" + cfg.Addr
	if strings.HasPrefix(cfg.Addr, ":") {
		base = "http://127.0.0.1" + cfg.Addr
	}
	shown := secret
	if fromEnv {
		shown = "$SERVICE_BOOTSTRAP_API_KEY"
		fmt.Fprintf(out, "\nAgentry created the owner account %s with the API key from SERVICE_BOOTSTRAP_API_KEY.\n", a.ID)
	} else {
		fmt.Fprintf(out, "\nAgentry created the owner account %s and this API key. It is shown once; keep it safe:\n\n    %s\n", a.ID, secret)
	}
	fmt.Fprintf(out, "\nTry it:\n\n    curl -H \"X-API-Key: %s\" %s/me\n\n", shown, base)
	if cfg.Console {
		link, err := web.NewSigninLink(ctx, db, u.ID)
		if err != nil {
			return fmt.Errorf("bootstrap sign-in link: %w", err)
		}
		fmt.Fprintf(out, "Or open the web console; this link signs the owner in once, within %s:\n\n    %s%s\n\n",
			fmtMinutes(web.SigninLinkTTL), cfg.ConsoleURL(), link)
	}
	return nil
}
