package isolation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// Case is one attempt by account B on account A.
type Case struct {
	// Op is the operation as the reference names it: "GET /agents/{agent_id}".
	Op string
	// Name says what B tries; unique within Op.
	Name string
	// Setup runs as account A (c.AsA, c.DB with c.A's ids) and returns the
	// ids that fill Path's {placeholders}.
	Setup func(t *testing.T, c *Ctx) Vars
	// Path is B's request target with {placeholders}; empty means Op's path.
	Path string
	// Headers are extra request headers, "Name: value".
	Headers []string
	// Body is B's request body (JSON unless a string or []byte); a
	// func(Vars) any builds it from Setup's ids.
	Body any
	// Expect judges B's answer.
	Expect Expectation
	// Control judges A's answer to the same request, sent after B's: it
	// proves the resource existed and that B's attempt left it intact.
	// Nil means any 2xx.
	Control Expectation
	// NoControl skips A's request, for operations where repeating it as A
	// proves nothing.
	NoControl bool
}

// Vars are Setup's results.
type Vars map[string]string

// Expectation checks an answer; c.Vars holds Setup's ids.
type Expectation func(t testing.TB, c *Ctx, r testserver.Response)

// Ctx is a case's world: one server, two accounts.
type Ctx struct {
	*testserver.Server
	A, B testserver.Tenant
	Vars Vars
}

// AsA sends a request with A's key.
func (c *Ctx) AsA(t testing.TB, method, path string, body any, headers ...string) testserver.Response {
	t.Helper()
	return c.Do(t, method, c.fill(path), c.A.Key, body, headers...)
}

// AsB sends a request with B's key.
func (c *Ctx) AsB(t testing.TB, method, path string, body any, headers ...string) testserver.Response {
	t.Helper()
	return c.Do(t, method, c.fill(path), c.B.Key, body, headers...)
}

func (c *Ctx) fill(s string) string {
	for k, v := range c.Vars {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// cases is the table, filled by the register calls of cases_*_test.go.
var cases []Case

// register adds cases to the table.
func register(cs ...Case) {
	for _, c := range cs {
		if c.Op == "" || c.Name == "" || c.Expect == nil {
			panic(fmt.Sprintf("isolation: case %q of %q needs Op, Name and Expect", c.Name, c.Op))
		}
		cases = append(cases, c)
	}
}
