package isolation

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

// The account's settings (extensions): keys, members and credits belong
// to the caller's account; B never lists, revokes or changes A's.
func init() {
	register(
		Case{
			Op: "GET /account/api-keys", Name: "B does not list A's keys",
			Setup:   keyOfA,
			Expect:  Status(http.StatusOK, lacks("{key_id}")),
			Control: Status(http.StatusOK, has("{key_id}")),
		},
		Case{
			Op: "POST /account/api-keys", Name: "B's new key acts in B's account",
			Body: map[string]any{"name": "b key"},
			Expect: Status(http.StatusCreated, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				for _, acct := range []string{c.A.AccountID, c.B.AccountID} {
					keys, err := auth.APIKeys(context.Background(), c.DB, acct)
					if err != nil {
						t.Fatal(err)
					}
					n := 0
					for _, k := range keys {
						if k.Name == "b key" {
							n++
						}
					}
					if want := map[bool]int{true: 0, false: 1}[acct == c.A.AccountID]; n != want {
						t.Errorf("account %s has %d keys named b key, want %d", acct, n, want)
					}
				}
			}),
			NoControl: true, // A making a key of its own proves nothing here
		},
		Case{
			Op: "DELETE /account/api-keys/{key_id}", Name: "B cannot revoke A's key",
			Setup: keyOfA,
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if k, err := auth.APIKeyInAccount(context.Background(), c.DB, c.A.AccountID, c.Vars["key_id"]); err != nil || k.RevokedAt != nil {
					t.Errorf("A's key after B's revoke: %+v %v", k, err)
				}
			},
		},
		Case{
			Op: "GET /account/members", Name: "B does not list A's members",
			Expect:  Status(http.StatusOK, lacks("{a_user}")),
			Control: Status(http.StatusOK, has("{a_user}")),
			Setup:   func(t *testing.T, c *Ctx) Vars { return Vars{"a_user": c.A.UserID} },
		},
		Case{
			Op: "PUT /account/members/{user_id}", Name: "B cannot change the role of A's member",
			Setup: memberOfA,
			Body:  map[string]any{"role": "owner"},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if role, err := directory.Role(context.Background(), c.DB, c.A.AccountID, c.Vars["user_id"]); err != nil || role != store.RoleMember {
					t.Errorf("A's member's role after B's change: %q %v", role, err)
				}
			},
		},
		Case{
			Op: "GET /account/credits", Name: "B does not see A's balance or ledger",
			Setup: func(t *testing.T, c *Ctx) Vars {
				if _, err := billing.NewCredits(c.DB).Charge(context.Background(), c.A.AccountID, 7, "spent by tenant A", ""); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			Expect:  Status(http.StatusOK, lacks("spent by tenant A")),
			Control: Status(http.StatusOK, has("spent by tenant A")),
		},
	)
}

// keyOfA issues a key in A's account and answers its id as key_id.
func keyOfA(t *testing.T, c *Ctx) Vars {
	r := c.AsA(t, http.MethodPost, "/account/api-keys", map[string]any{"name": "a key"})
	var k struct {
		ID string `json:"id"`
	}
	r.JSON(t, &k)
	if r.Status != http.StatusCreated || k.ID == "" {
		t.Fatalf("A's key: %d %s", r.Status, r.Body)
	}
	return Vars{"key_id": k.ID}
}

// memberOfA adds a member to A's account and answers their id as user_id.
func memberOfA(t *testing.T, c *Ctx) Vars {
	ctx := context.Background()
	u, _, err := directory.CreateUser(ctx, c.DB, directory.NewUser{Name: "member of A", OpeningCredits: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := directory.AddMember(ctx, c.DB, c.A.AccountID, u.ID, store.RoleMember); err != nil {
		t.Fatal(err)
	}
	return Vars{"user_id": u.ID}
}

// lacks and has check the body for a text, with Setup's ids filled in.
func lacks(s string) Expectation {
	return func(t testing.TB, c *Ctx, r testserver.Response) {
		t.Helper()
		if w := c.fill(s); strings.Contains(string(r.Body), w) {
			t.Errorf("B's answer holds A's %q: %.500s", w, r.Body)
		}
	}
}

func has(s string) Expectation {
	return func(t testing.TB, c *Ctx, r testserver.Response) {
		t.Helper()
		if w := c.fill(s); !strings.Contains(string(r.Body), w) {
			t.Errorf("A's answer lacks %q: %.500s", w, r.Body)
		}
	}
}
