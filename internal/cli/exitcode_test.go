package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
)

func TestExitCodes(t *testing.T) {
	t.Parallel()
	api := func(status int) error {
		return fmt.Errorf("call: %w", &client.APIError{StatusCode: status, Message: "x"})
	}
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("boom"), ExitError},
		{usageErrorf("bad"), ExitUsage},
		{&client.VersionError{Version: "x"}, ExitUsage},
		{errors.New(`unknown command "x" for "agentry"`), ExitUsage},
		{sso.ErrNotLoggedIn, ExitAuth},
		{fmt.Errorf("x: %w", sso.ErrLoginRequired), ExitAuth},
		{sso.ErrNotConfigured, ExitAuth},
		{api(401), ExitAuth},
		{api(403), ExitAuth},
		{api(404), ExitNotFound},
		{api(400), ExitValidation},
		{&client.ValidationError{APIError: &client.APIError{StatusCode: 422}}, ExitValidation},
		{&client.ImportError{APIError: &client.APIError{StatusCode: 422}}, ExitValidation},
		{api(409), ExitConflict},
		{&client.InsufficientCreditsError{APIError: &client.APIError{StatusCode: 402}}, ExitCredits},
		{api(429), ExitRateLimited},
		{api(503), ExitServer},
		{api(418), ExitError},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, ExitUnreachable},
		{fmt.Errorf("wait: %w", client.ErrPollTimeout), ExitTimeout},
		{context.DeadlineExceeded, ExitTimeout},
		{&hinted{api(404), "hint"}, ExitNotFound},
	}
	for _, c := range cases {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
