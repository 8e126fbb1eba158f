package isolation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// Variant is one way B sends a case's request.
type Variant struct {
	Name string
	// Headers adds headers to B's request; it sees both accounts.
	Headers func(c *Ctx) []string
}

// Variants are run for every case. API keys belong to one account, so
// naming A's account in X-Account-Id must change nothing.
var Variants = []Variant{
	{Name: "B's key"},
	{Name: "B's key with X-Account-Id of A", Headers: func(c *Ctx) []string {
		return []string{"X-Account-Id: " + c.A.AccountID}
	}},
}

// Run performs one case in one variant with two fresh accounts.
func Run(t *testing.T, ts *testserver.Server, cs Case, v Variant) {
	t.Helper()
	c := &Ctx{Server: ts, A: ts.NewTenant(t, "tenant A"), B: ts.NewTenant(t, "tenant B"), Vars: Vars{}}
	if cs.Setup != nil {
		if vars := cs.Setup(t, c); vars != nil {
			c.Vars = vars
		}
	}
	method, path, _ := strings.Cut(cs.Op, " ")
	if cs.Path != "" {
		path = cs.Path
	}
	path = c.fill(path)
	if strings.Contains(path, "{") {
		t.Fatalf("unfilled placeholder in %q (Setup returned %v)", path, c.Vars)
	}
	body := cs.Body
	if f, ok := body.(func(Vars) any); ok {
		body = f(c.Vars)
	}
	if s, ok := body.(string); ok {
		body = c.fill(s)
	}
	headers := make([]string, 0, len(cs.Headers)+1)
	for _, h := range cs.Headers {
		headers = append(headers, c.fill(h))
	}
	if v.Headers != nil {
		headers = append(headers, v.Headers(c)...)
	}

	r := c.Do(t, method, path, c.B.Key, clone(t, body), headers...)
	cs.Expect(t, c, r)
	if cs.NoControl {
		return
	}
	control := cs.Control
	if control == nil {
		control = Succeeds()
	}
	control(t, c, c.Do(t, method, path, c.A.Key, clone(t, body), headers[:len(cs.Headers)]...))
}

// clone re-encodes a JSON body so B's and A's requests cannot share state.
func clone(t *testing.T, body any) any {
	switch body.(type) {
	case nil, string, []byte:
		return body
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
