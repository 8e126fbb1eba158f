package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
)

// An API built without an area is a wiring error that New names at once,
// rather than a server quietly missing that area's routes.
func TestNewRequiresEveryArea(t *testing.T) {
	t.Parallel()
	defer func() {
		msg := fmt.Sprint(recover())
		for _, name := range []string{"Accounts", "Agents", "Auth", "Blobs", "Catalog", "ModelAlerts", "Playground", "Ready", "Runs", "Secrets",
			"Mail", "EmailDomains", "DMARC", "MailInbound", "MailProtect", "Knowledge", "SourceExports", "Evals", "Governance", "Alerts", "MCPExpose", "Solutions"} {
			if !strings.Contains(msg, name) {
				t.Errorf("panic %q does not name %s", msg, name)
			}
		}
	}()
	api.New(api.Deps{})
	t.Fatal("api.New accepted missing dependencies")
}
