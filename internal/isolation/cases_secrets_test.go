package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// Account secrets (an extension): names, values and deletions belong to the
// caller's account; B never sees, reads, replaces or deletes A's.
func init() {
	register(
		Case{
			Op: "GET /secrets", Name: "B does not list A's secrets",
			Setup:   secretOfA,
			Expect:  Status(http.StatusOK, EmptyList("secrets")),
			Control: Status(http.StatusOK, NonEmptyList("secrets")),
		},
		Case{
			Op: "PUT /secrets/{name}", Name: "B's secret of the same name is B's own",
			Setup: secretOfA,
			Body:  map[string]any{"value": "value of B", "hosts": []string{"b.example"}},
			Expect: Status(http.StatusCreated, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				secretIs(t, c, c.A.AccountID, "value of A")
				secretIs(t, c, c.B.AccountID, "value of B")
			}),
			NoControl: true, // A replacing its own secret proves nothing here
		},
		Case{
			Op: "PUT /secrets/{name}", Name: "B cannot rebind A's secret to B's host",
			Setup: secretOfA,
			Body:  map[string]any{"hosts": []string{"b.example"}},
			Expect: Status(http.StatusUnprocessableEntity, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				secretIs(t, c, c.A.AccountID, "value of A")
				got, err := c.S.Secrets.Reveal(context.Background(), c.A.AccountID, "SHARED_NAME")
				if err != nil || len(got.Hosts) != 1 || got.Hosts[0] != "a.example" {
					t.Errorf("A's hosts: %v %v", got.Hosts, err)
				}
			}),
			Control: Status(http.StatusOK),
		},
		Case{
			Op: "DELETE /secrets/{name}", Name: "B cannot delete A's secret",
			Setup: secretOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				secretIs(t, c, c.A.AccountID, "value of A")
			},
			Control: Status(http.StatusNoContent),
		},
	)
}

var valueOfA = "value of A"

// secretOfA stores A's secret SHARED_NAME, bound to a.example.
func secretOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	if _, _, err := c.S.Secrets.Put(context.Background(), c.A.AccountID, "SHARED_NAME", &valueOfA, []string{"a.example"}); err != nil {
		t.Fatal(err)
	}
	return Vars{"name": "SHARED_NAME"}
}

func secretIs(t testing.TB, c *Ctx, accountID, want string) {
	t.Helper()
	got, err := c.S.Secrets.Reveal(context.Background(), accountID, "SHARED_NAME")
	if err != nil || got.Value != want {
		t.Errorf("secret of %s: %q %v, want %q", accountID, got.Value, err, want)
	}
}
