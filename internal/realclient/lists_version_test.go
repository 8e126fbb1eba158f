package realclient_test

import (
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestListsAtBothVersions: the lists that kept a legacy shape at
// 2026-07-27 read the same through the client at both versions, and the
// blocklist's auto-block mode stays readable beside the envelope.
func TestListsAtBothVersions(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		for _, v := range []string{client.Version20260701, client.Version20260727} {
			c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key), client.WithAPIVersion(v))
			if err != nil {
				t.Fatal(err)
			}
			sol, err := c.CreateSolution(ctx, "desk "+v, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.AddSolutionConversation(ctx, sol.ID, client.AddConversationTurnRequest{UserInput: "hello " + v}); err != nil {
				t.Fatal(err)
			}
			turns, err := c.SolutionConversations(ctx, sol.ID)
			if err != nil || len(turns) != 1 || turns[0].UserInput != "hello "+v {
				t.Fatalf("%s: conversations %+v %v", v, turns, err)
			}

			if _, err := c.BlockEmailSender(ctx, "eve-"+v+"@spam.example", "address", ""); err != nil {
				t.Fatal(err)
			}
			set, err := c.SetAutoBlockMode(ctx, "input")
			if err != nil || set.AutoBlockMode != "input" {
				t.Fatalf("%s: set mode %+v %v", v, set, err)
			}
			l, err := c.ListBlockedEmailSenders(ctx, 50, 0)
			if err != nil || l.AutoBlockMode != "input" || len(l.Items) == 0 {
				t.Fatalf("%s: blocked %+v %v", v, l, err)
			}
			wantShape := client.ShapeKeyed
			if v == client.Version20260727 {
				wantShape = client.ShapeEnvelope
			}
			if l.Shape != wantShape {
				t.Errorf("%s: blocked list read as %s, want %s", v, l.Shape, wantShape)
			}
		}
	})
}
