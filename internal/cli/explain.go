package cli

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

// explainErrors wraps the RunE of cmd and its subcommands so that errors
// reach the user with what they need to act on them. The original error
// stays in the chain, so ExitCode is unaffected.
func (a *App) explainErrors(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error { return a.explain(hintLargeInput(c, run(c, args))) }
	}
	for _, sub := range cmd.Commands() {
		a.explainErrors(sub)
	}
}

// hinted is an error with advice after it.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + "\n" + h.hint }
func (h *hinted) Unwrap() error { return h.err }

func (a *App) explain(err error) error {
	if err == nil {
		return nil
	}
	var (
		ie     *client.ImportError
		ve     *client.VersionError
		apiErr *client.APIError
		ne     net.Error
	)
	switch {
	case errors.As(err, &ve) && a.APIVersion != "":
		return &usageError{fmt.Errorf("--api-version %s %s (known: %s)", a.APIVersion, versionReason(ve), strings.Join(client.KnownVersions(), ", "))}
	case errors.As(err, &ie):
		var b strings.Builder
		for _, fe := range ie.Errors {
			b.WriteString(ie.Excerpt(fe, 2))
		}
		return &hinted{err, strings.TrimRight(b.String(), "\n")}
	case errors.As(err, &apiErr) && apiErr.StatusCode == 401:
		return &hinted{err, "hint: log in with `agentry auth login`, or pass --api-key (or set SERVICE_API_KEY)"}
	case errors.As(err, &apiErr) && apiErr.StatusCode == 403 && a.AccountID != "":
		return &hinted{err, "hint: --account-id must be an organization you belong to (see `agentry me`)"}
	case errors.As(err, &apiErr):
		return err
	case errors.As(err, &ne):
		return &hinted{err, "hint: is the server running at " + a.baseURL() + "? Set --base-url or SERVICE_API_URL."}
	}
	return err
}

func versionReason(ve *client.VersionError) string {
	if strings.HasPrefix(ve.Reason, "this client") {
		return "is not a version this agentry was built for"
	}
	return ve.Reason
}

// baseURL is the server the commands talk to, as the client resolves it.
func (a *App) baseURL() string {
	switch {
	case a.BaseURL != "":
		return a.BaseURL
	case a.Getenv(client.EnvAPIURL) != "":
		return a.Getenv(client.EnvAPIURL)
	}
	return client.DefaultBaseURL
}
