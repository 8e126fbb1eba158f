package main

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/agentry/agentry/internal/mcpserver/mcpservertest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPOverStdio launches `agentry mcp` as a child process, as a desktop
// MCP client does, and drives it with the SDK's client: the tools reach
// the running server with the key from SERVICE_API_KEY.
func TestMCPOverStdio(t *testing.T) {
	t.Parallel()
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		p := &mcpservertest.Progress{}
		launch := func(key string) (*mcp.ClientSession, error) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "AGENTRY_E2E_CHILD=1", "AGENTRY_E2E_ARGS=mcp",
				"SERVICE_API_URL="+s.URL, "SERVICE_API_KEY="+key, "SERVICE_CONFIG_DIR="+t.TempDir())
			c := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: p.Add})
			sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err == nil {
				t.Cleanup(func() { _ = sess.Close() })
			}
			return sess, err
		}
		sess, err := launch(s.Key)
		if err != nil {
			t.Fatal(err)
		}
		agent := mcpservertest.Exercise(t, sess, p)

		// Another account's key sees none of it.
		other := s.NewTenant(t, "other")
		os2, err := launch(other.Key)
		if err != nil {
			t.Fatal(err)
		}
		res := mcpservertest.CallRaw(t, os2, "get_agent", map[string]any{"agent_id": agent}, nil)
		if !res.IsError {
			t.Errorf("another account's key reads the agent: %s", mcpservertest.Text(res))
		}
	})
}
