package api_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/danielgtaylor/huma/v2"
)

// TestRolesDeclaredInTheRouteTableAreEnforced walks every operation: those
// the route table declares for owners and admins refuse a member with a 403
// before reading the input (an empty body and ids that name nothing, which
// would otherwise be a 422 or a 404), and those needing a user-bound key
// refuse an account-only key. The operations declaring nothing are not
// refused for the role (a member gets something other than 403 on a sample
// of them). So a role cannot be forgotten by a handler, nor enforced twice
// differently.
func TestRolesDeclaredInTheRouteTableAreEnforced(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		member := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		accountOnly := s.IssueKey(t, s.AccountID, "", store.RoleOwner)
		param := regexp.MustCompile(`\{[a-z_]+\}`)
		admins, users := 0, 0
		for path, item := range s.S.API.OpenAPI().Paths {
			for method, op := range map[string]*huma.Operation{"GET": item.Get, "POST": item.Post, "PUT": item.Put, "PATCH": item.Patch, "DELETE": item.Delete} {
				if op == nil {
					continue
				}
				url := param.ReplaceAllString(path, "01234567-89ab-7def-8123-456789abcdef")
				action, isAdmin := op.Metadata["admin_action"].(string)
				what, isUser := op.Metadata["user_bound"].(string)
				if isAdmin {
					admins++
					r := s.Do(t, method, url, member, nil)
					if r.Status != http.StatusForbidden || !strings.Contains(detailOf(t, r.Body), "Only an owner or admin of the account can "+action) {
						t.Errorf("%s %s: member refused with %d %s", method, path, r.Status, r.Body)
					}
				}
				if isUser {
					users++
					r := s.Do(t, method, url, accountOnly, nil)
					if r.Status != http.StatusForbidden || !strings.Contains(detailOf(t, r.Body), what+" need an API key or token bound to a user") {
						t.Errorf("%s %s: account-only key refused with %d %s", method, path, r.Status, r.Body)
					}
				}
			}
		}
		if admins < 20 || users < 8 {
			t.Fatalf("the route table declares %d owner-or-admin and %d user-bound operations; expected at least 20 and 8", admins, users)
		}
		// Reading what an admin changes stays open to members.
		for _, path := range []string{"/secrets", "/version", "/governance/policies", "/agents/blocked-email-senders", "/email-domains"} {
			if r := s.Do(t, "GET", path, member, nil); r.Status == http.StatusForbidden {
				t.Errorf("GET %s: a member is refused: %s", path, r.Body)
			}
		}
	})
}

// detailOf is the error's detail text, whatever the error's shape.
func detailOf(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Detail any `json:"detail"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body: %v: %s", err, body)
	}
	if s, ok := e.Detail.(string); ok {
		return s
	}
	b, _ := json.Marshal(e.Detail)
	return string(b)
}
